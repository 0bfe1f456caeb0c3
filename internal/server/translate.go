package server

import (
	"fmt"
	"net/http"

	"github.com/detour-llm/detour/internal/dispatch"
)

// The Messages and Responses doors translate a body into chat by decoding
// it whole; while that runs its cost (dispatch.TranslationCost) is taken
// from the request-body allowance, and the translated body the request
// keeps for failover stays counted until the request ends. An attempt's
// translation into a provider's dialect is taken the same way, through
// dispatch.Call.Allowance (the admitted request).

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
	cost := dispatch.TranslationCost(a.body)
	if !s.reserve(a, cost) {
		translationBusy(w, d, a)
		return false
	}
	kept := fn()
	s.unreserve(a, cost)
	s.keep(a, int64(kept))
	return true
}

// Hold and Release make a request's admission the dispatch.Allowance its
// attempts take their translations from, as its door's (reserve).
func (a *admitted) Hold(n int64) bool { return a.srv.reserve(a, n) }
func (a *admitted) Release(n int64)   { a.srv.unreserve(a, n) }
