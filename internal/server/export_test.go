package server

// What the allowance tests of package server_test read and do.

// BodiesHeld is the request-body bytes the server counts as held now.
func (s *Server) BodiesHeld() int64 { return s.bodies.held.Load() }

// Overdrawn reports whether a request holds the allowance's one overdraft.
func (s *Server) Overdrawn() bool { return s.bodies.over.Load() != nil }

// Overdraw takes the overdraft as a request translating past the
// allowance holds it, and returns what gives it back.
func (s *Server) Overdraw() (giveBack func()) {
	a := &admitted{}
	if !s.bodies.over.CompareAndSwap(nil, a) {
		panic("the overdraft is already held")
	}
	return func() { s.bodies.over.CompareAndSwap(a, nil) }
}
