package dispatch

import (
	"context"
	"sync"
)

// inflight ends every request in flight when Options.Stop is done (the
// shutdown grace period is over). It holds the requests of one Dispatcher
// in a list of their own and watches Stop with one context.AfterFunc for
// them all, rather than one per request on the process-wide context
// (docs/benchmarks.md, "Round 5"). The AfterFunc is registered with the
// first request and removed once the Dispatcher is closed and its last
// request has ended, so a reloaded configuration's Dispatcher does not stay
// reachable from Stop.
type inflight struct {
	mu     sync.Mutex
	head   *member
	watch  func() bool // stops the AfterFunc on Stop; nil while none is registered
	fired  bool        // Stop is done: every request, present and future, ends
	closed bool
	// drained runs when a request of a closed Dispatcher ends and none is
	// left: the connections those requests used went back to their pools
	// after Close had emptied them.
	drained func()
}

// member is one request's place in the list; the walk holds it.
type member struct {
	prev, next *member
	cancel     context.CancelCauseFunc
}

// join adds m, whose cancel ends its request with errShutdown when stop is
// done (at once when it is done already). stop must not be nil.
func (s *inflight) join(stop context.Context, m *member) {
	s.mu.Lock()
	if s.fired {
		s.mu.Unlock()
		m.cancel(errShutdown)
		return
	}
	if s.watch == nil {
		s.watch = context.AfterFunc(stop, s.fire)
	}
	m.prev, m.next = nil, s.head
	if s.head != nil {
		s.head.prev = m
	}
	s.head = m
	s.mu.Unlock()
}

// leave removes m, added by join; it may be called for an m join did not
// add (Stop was done already).
func (s *inflight) leave(m *member) {
	s.mu.Lock()
	switch {
	case m.prev != nil:
		m.prev.next = m.next
	case s.head == m:
		s.head = m.next
	default:
		s.mu.Unlock()
		return // not in the list
	}
	if m.next != nil {
		m.next.prev = m.prev
	}
	m.prev, m.next = nil, nil
	s.unwatchIfDone()
	var drained func()
	if s.closed && s.head == nil {
		drained = s.drained
	}
	s.mu.Unlock()
	if drained != nil {
		drained()
	}
}

// close marks the Dispatcher closed: once its last request has ended, Stop
// is no longer watched for it, and drained runs (again each time a request
// that came late ends).
func (s *inflight) close(drained func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	s.drained = drained
	s.unwatchIfDone()
}

// unwatchIfDone removes the AfterFunc of a closed Dispatcher with no
// request left; s.mu is held. A request that comes after it (one that
// loaded the old configuration just before a reload) registers it again.
func (s *inflight) unwatchIfDone() {
	if s.closed && s.head == nil && s.watch != nil {
		s.watch()
		s.watch = nil
	}
}

// fire ends every request in the list: Stop is done.
func (s *inflight) fire() {
	s.mu.Lock()
	s.fired = true
	var cancels []context.CancelCauseFunc
	for m := s.head; m != nil; m = m.next {
		cancels = append(cancels, m.cancel)
	}
	s.mu.Unlock()
	for _, c := range cancels {
		c(errShutdown)
	}
}
