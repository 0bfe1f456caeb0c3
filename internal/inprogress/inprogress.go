package inprogress

import (
	"slices"
	"sync"
	"time"
)

// Set is the requests in progress on this replica. The zero value is ready
// to use; a nil *Set keeps nothing. Safe for concurrent use.
//
// The requests are kept in a list through the Requests themselves: adding
// and removing one allocates nothing and hashes nothing, which every
// request pays (docs/benchmarks.md, "Round 23"); only List, which the
// console calls, walks them.
type Set struct {
	mu   sync.Mutex
	head *Request // the newest added; then older ones through next
	n    int
}

// Request is one request in progress. Its fixed fields are set before Add
// and never change; the attempt changes as dispatch moves on (Attempt).
// A Request is in at most one Set at a time.
type Request struct {
	ID      string    // the decision record's id
	API     string    // the door: chat, completions, messages, responses, embeddings, count_tokens
	Route   string    // the model the client named
	Client  string    // the client key's name; "" without client keys
	Stream  bool      // the client asked for a stream
	Started time.Time // when the front admitted it

	// prev, next and in are its place in the Set, guarded by the Set's mu.
	prev, next *Request
	in         bool

	mu      sync.Mutex
	attempt Attempt
}

// Attempt is the upstream call a request is making: the N-th of the
// request, at Target through Provider, since Started.
type Attempt struct {
	N        int       `json:"n"`
	Target   string    `json:"target"`
	Provider string    `json:"provider"`
	Started  time.Time `json:"started"`
}

// View is a Request as the console shows it.
type View struct {
	ID      string    `json:"id"`
	API     string    `json:"api"`
	Route   string    `json:"route"`
	Client  string    `json:"client"`
	Stream  bool      `json:"stream"`
	Started time.Time `json:"started"`
	// Attempt is the call being made; nil before the first one.
	Attempt *Attempt `json:"attempt"`
}

// Add records r as in progress until Remove(r). A nil Set records
// nothing; adding r again while it is in is harmless.
func (s *Set) Add(r *Request) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if !r.in {
		r.in, r.prev, r.next = true, nil, s.head
		if s.head != nil {
			s.head.prev = r
		}
		s.head = r
		s.n++
	}
	s.mu.Unlock()
}

// Remove ends r's time in progress. It may be called more than once, and
// for an r never added; a nil Set does nothing.
func (s *Set) Remove(r *Request) {
	if s == nil {
		return
	}
	s.mu.Lock()
	if r.in {
		if r.prev != nil {
			r.prev.next = r.next
		} else {
			s.head = r.next
		}
		if r.next != nil {
			r.next.prev = r.prev
		}
		r.in, r.prev, r.next = false, nil, nil
		s.n--
	}
	s.mu.Unlock()
}

// Attempt records that r is now making its n-th attempt, at target through
// provider, begun at at. Safe on a nil Request.
func (r *Request) Attempt(n int, target, provider string, at time.Time) {
	if r == nil {
		return
	}
	r.mu.Lock()
	r.attempt = Attempt{N: n, Target: target, Provider: provider, Started: at}
	r.mu.Unlock()
}

// List returns at most max of the requests in progress, the oldest first
// (ties by id), and how many there are in all.
func (s *Set) List(max int) (views []View, total int) {
	if s == nil {
		return nil, 0
	}
	s.mu.Lock()
	reqs := make([]*Request, 0, s.n)
	for r := s.head; r != nil; r = r.next {
		reqs = append(reqs, r)
	}
	s.mu.Unlock()
	slices.SortFunc(reqs, func(a, b *Request) int {
		if c := a.Started.Compare(b.Started); c != 0 {
			return c
		}
		return compare(a.ID, b.ID)
	})
	total = len(reqs)
	if len(reqs) > max {
		reqs = reqs[:max]
	}
	views = make([]View, len(reqs))
	for i, r := range reqs {
		views[i] = View{ID: r.ID, API: r.API, Route: r.Route, Client: r.Client, Stream: r.Stream, Started: r.Started}
		r.mu.Lock()
		if a := r.attempt; a.N > 0 {
			views[i].Attempt = &a
		}
		r.mu.Unlock()
	}
	return views, total
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
