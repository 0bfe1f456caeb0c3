package server

import (
	"fmt"
	"net/http"
)

// The Messages and Responses doors translate a body into chat by decoding
// it whole, which costs many times the body while it runs: up to about 9
// bytes per body byte (one long text, a long array of numbers), and about
// 1.6 KiB per object or array for a body of many small blocks (measured as
// total allocation, with the race detector's overhead and encoding/json's
// pooled buffers cold: TestTranslationCostBoundsTheTranslation,
// BenchmarkTranslationCost; docs/config.md, max_inflight_body_bytes). That
// memory is taken from the same allowance as the bodies, for as long as the
// translation runs; the translated body the request keeps for failover
// stays counted until the request ends.

// Per body byte and per object or array, what a translation may cost.
const (
	costPerByte      = 10
	costPerStructure = 1792
)

// translationCost is what translating body may cost: costPerByte for each
// byte and costPerStructure for each object or array outside strings.
func translationCost(body []byte) int64 {
	return costPerByte*int64(len(body)) + costPerStructure*int64(structures(body))
}

// structures counts the objects and arrays of a JSON text (the opening
// brackets outside strings), in one pass.
func structures(b []byte) int {
	n, in := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == '{' || c == '['):
			n++
		}
	}
	return n
}

// reserve takes n bytes of the allowance for a's request: within
// max_inflight_body_bytes, or past it when a's request is the only one
// holding any (every body the front accepts can be served; the
// configuration check keeps the allowance at least one body). false means
// neither: the caller answers with busy.
func (s *Server) reserve(a *admitted, n int64) bool {
	limit := a.st.Config.MaxInflightBodyBytes
	for {
		h := s.bodies.held.Load()
		if h+n > limit && h != a.held {
			return false
		}
		if s.bodies.held.CompareAndSwap(h, h+n) {
			a.held += n
			return true
		}
	}
}

// unreserve gives back n bytes reserve took for a's request.
func (s *Server) unreserve(a *admitted, n int64) {
	s.bodies.give(n)
	a.held -= n
}

// keep counts n more bytes that a's request holds until it ends (its
// translated body), within the reservation its translation just gave back.
func (s *Server) keep(a *admitted, n int64) {
	s.bodies.held.Add(n)
	a.held += n
}

// translationBusy answers a request whose translation does not fit, in the
// door's envelope: 503 with Retry-After, like a body that does not.
func translationBusy(w http.ResponseWriter, d door, a *admitted) {
	w.Header().Set("Retry-After", retryAfter)
	d.fail(w, http.StatusServiceUnavailable, "inflight_body_limit", fmt.Sprintf(
		"translating this request needs more memory than the gateway may hold for request bodies at once beside the others (max_inflight_body_bytes, %d bytes); retry after %s s",
		a.st.Config.MaxInflightBodyBytes, retryAfter))
}

// translate runs fn, a door's translation of a's body, within a
// reservation of its cost, and keeps kept(), the bytes the request holds
// from it until it ends. false: the reservation was refused and the client
// answered.
func (s *Server) translate(w http.ResponseWriter, d door, a *admitted, fn func() (kept int)) bool {
	cost := translationCost(a.body)
	if !s.reserve(a, cost) {
		translationBusy(w, d, a)
		return false
	}
	kept := fn()
	s.unreserve(a, cost)
	s.keep(a, int64(kept))
	return true
}
