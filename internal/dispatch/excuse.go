package dispatch

// Timeouts that are the request's own, not the endpoint's: a long whole
// answer, a long thought before a stream's first token (docs/behaviour.md,
// "Routing"). They walk on but count against nobody while the endpoint
// serves others, one served request excusing one such timeout.

import (
	"sync/atomic"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
)

// evFirstToken is the evidence of a stream's first-token timeout.
const evFirstToken = "timeout:" + string(PhaseFirstToken)

// counts are the counters a timeout of a stream attempt (stream) or of a
// whole one is excused against (lengthy): a whole answer's by the
// endpoint's successes, a stream's first token by its streams' first
// contents — a whole answer proves nothing of its streams.
func (e *endpointRT) counts(stream bool) (served, excused *atomic.Int64) {
	if stream {
		return &e.firsts, &e.firstsExcused
	}
	return &e.answers, &e.excused
}

// evHeldBack ends the evidence of a stream's cut that counted against
// nobody because the client had held the relay back (outcome.heldBack).
const evHeldBack = " (the client was reading slowly: not counted against the endpoint)"

// evLengthy and evThinking end the evidence of a timeout that counted
// against nobody because it was the request's own length (lengthy).
const (
	evLengthy  = " (a long whole answer: the endpoint answered others meanwhile)"
	evThinking = " (a long wait for the first token: the endpoint served others meanwhile)"
)

// lengthy reports whether failure o of class c at e is the request's own
// length rather than the endpoint's: a whole (non-stream) answer's headers
// come once the model has written all of it, and a reasoning model that
// streams none of its thinking sends its first token once it has thought,
// so a whole answer that outlives `timeout`, or a stream its
// `first_token_timeout`, while e served another request is the length or
// the thought the client asked for — counted, it would let a client's long
// answers or hard prompts cool the endpoint for everyone. One success
// since a whole answer's attempt began, or one stream's first content
// since a stream's began (endpointRT.counts), excuses one such timeout, so
// an endpoint that hangs most requests but answers a monitor's ping still
// cools (review 41h), and one whose streams hang while its whole answers
// work cools too (review 43g). A stream's other timeouts (its headers, a gap after its
// first content) are the endpoint's.
func (w *walk) lengthy(e *endpointRT, o *outcome, c classify.Class) bool {
	if c != classify.Timeout || w.call.Stream && o.verdict.Evidence != evFirstToken {
		return false
	}
	served, excused := e.counts(w.call.Stream)
	for {
		ex := excused.Load()
		if served.Load()-o.answers0 <= ex-o.excused0 {
			return false
		}
		if excused.CompareAndSwap(ex, ex+1) {
			return true
		}
	}
}

// unsent reports an attempt Detour never sent: the dialect cannot express
// the request ("translate"), or its translation does not fit the
// allowance now or ever (decision.EvidenceAllowance, decision.EvidenceTooCostly).
func (o *outcome) unsent() bool { return decision.Unsent(o.verdict.Evidence) }
