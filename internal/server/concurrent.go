package server

import "sync"

// slots counts each client key's requests in progress on this replica, for
// its max_concurrent (docs/config.md, client_keys). The Server keeps it, so
// a reload neither forgets nor doubles what is in progress. The zero value
// is ready to use.
type slots struct {
	mu sync.Mutex
	n  map[string]int
}

// take holds one of name's max slots; false when all are held.
func (s *slots) take(name string, max int) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[name] >= max {
		return false
	}
	if s.n == nil {
		s.n = make(map[string]int)
	}
	s.n[name]++
	return true
}

// held is how many of name's slots are held now.
func (s *slots) held(name string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n[name]
}

// SlotsHeld is how many requests of the client key named name hold one of
// its max_concurrent slots on this replica now: from before its body is
// read until it ends (a stream's end), count_tokens' pool of its own left
// out. The console's Keys page shows it (docs/console.md, "Keys").
func (s *Server) SlotsHeld(name string) int { return s.slots.held(name) }

// give returns one of name's slots.
func (s *slots) give(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.n[name] <= 1 {
		delete(s.n, name) // a key that is gone from the configuration leaves nothing behind
		return
	}
	s.n[name]--
}

// end gives back what a's request held — its body's bytes and its slot —
// once the request has ended (a stream's when it ended), and takes it off
// the console's "In progress".
func (s *Server) end(a *admitted) {
	s.progress.Remove(&a.progress) // no longer in progress (do added it, if it ran)
	s.bodies.give(a.held)
	a.held = 0
	if a.over > 0 { // a translation that never returned (a panic)
		a.over = 0
		s.bodies.over.CompareAndSwap(a, nil)
	}
	if a.slot != "" {
		s.slots.give(a.slot)
		a.slot = ""
	}
	if a.aside != "" {
		s.slots.give(a.aside)
		a.aside = ""
	}
}
