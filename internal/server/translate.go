package server

import (
	"fmt"
	"net/http"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/offstack"
)

// The Messages and Responses doors translate a body into chat by decoding
// it whole; while that runs its cost (dispatch.TranslationCost) is taken
// from the request-body allowance, and the translated body the request
// keeps for failover stays counted until the request ends. An attempt's
// translation into a provider's dialect is taken the same way, through
// dispatch.Call.Allowance (the admitted request), and its translated body
// stays counted until the attempt ends.
//
// A translation that does not fit beside the others may still run when no
// other request is past the allowance at that moment: one request at a
// time may overdraw it, by what its translation reserves (docs/config.md,
// max_inflight_body_bytes). The overdraft is counted apart, so it refuses
// no other request, and given back when that translation ends. Without it
// a body whose translation costs more than the room the others leave
// (any Messages body above a tenth of the allowance beside one small
// request) would be refused for as long as traffic lasts.

// reserve takes n bytes of the allowance for a's request: within
// max_inflight_body_bytes, or as the one overdraft when no other request
// holds it. A request has at most one reservation at a time (its door's
// translation, then each attempt's, one after the other). false means
// neither: the caller answers with busy.
func (s *Server) reserve(a *admitted, n int64) bool {
	if n > a.Cap() {
		return false
	}
	if s.bodies.take(n, a.st.Config.MaxInflightBodyBytes) {
		a.held += n
		return true
	}
	if s.bodies.over.CompareAndSwap(nil, a) {
		a.over = n
		return true
	}
	return false
}

// settle ends a reservation of n bytes, keeping kept of them counted until
// the request (or the caller) gives them back: the translated body. An
// overdraft is given back whole and kept is counted within the allowance
// without a check, as the body it replaces in memory was already counted
// (kept is at most a few times the client's body, far less than n).
func (s *Server) settle(a *admitted, n, kept int64) {
	if a.over > 0 {
		a.over = 0
		s.bodies.over.CompareAndSwap(a, nil)
		n = 0
	}
	s.bodies.held.Add(kept - n) // one step: no other request can take the room between
	a.held += kept - n
}

// translationBusy answers a request whose translation does not fit, in the
// door's envelope: 503 with Retry-After, like a body that does not.
func (s *Server) translationBusy(w http.ResponseWriter, d door, a *admitted) {
	w.Header().Set("Retry-After", retryAfter)
	s.refuse(w, d, http.StatusServiceUnavailable, "inflight_body_limit", fmt.Sprintf(
		"translating this request needs more memory than the gateway may hold for request bodies at once beside the others (max_inflight_body_bytes, %d bytes); retry after %s s",
		a.st.Config.MaxInflightBodyBytes, retryAfter))
}

// translate runs fn, a door's translation of a's body (and any decoding
// that goes with it), within a reservation of its cost, and keeps kept(),
// the bytes the request holds from it until it ends. fn runs off the
// handler's stack (offstack.Run): a body nested a few levels deep, as
// tool schemas are, grew the stack its stream keeps to 16 KiB. false: the
// reservation was refused and the client answered.
func (s *Server) translate(w http.ResponseWriter, d door, a *admitted, fn func() (kept int)) bool {
	return s.reserveFor(w, d, a, dispatch.TranslationCost(a.body), fn)
}

// reserveFor is translate for work whose cost is cost (an embeddings
// body's parse: dispatch.EmbeddingsCost).
func (s *Server) reserveFor(w http.ResponseWriter, d door, a *admitted, cost int64, fn func() (kept int)) bool {
	if cost > a.Cap() {
		s.refuse(w, d, http.StatusRequestEntityTooLarge, "translation_too_costly", fmt.Sprintf(
			"translating this request would need %d bytes of memory, more than one request may use (%d: 128 times max_body_bytes, or max_inflight_body_bytes if larger); a body made mostly of tiny blocks, or of list elements that are not objects, costs far more than its size",
			cost, a.Cap()))
		return false
	}
	if !s.reserve(a, cost) {
		s.translationBusy(w, d, a)
		return false
	}
	s.settle(a, cost, int64(offstack.Run(fn)))
	return true
}

// Hold, Settle and Release make a request's admission the
// dispatch.Allowance its attempts take their translations from, as its
// door's (reserve).
func (a *admitted) Hold(n int64) bool { return a.srv.reserve(a, n) }
func (a *admitted) Cap() int64 {
	return dispatch.MaxTranslationCost(a.st.Config.MaxBodyBytes, a.st.Config.MaxInflightBodyBytes)
}
func (a *admitted) Settle(n, kept int64) { a.srv.settle(a, n, kept) }
func (a *admitted) Release(n int64)      { a.srv.bodies.give(n); a.held -= n }
