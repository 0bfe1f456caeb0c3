package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/rawjson"
	"github.com/detour-llm/detour/internal/splice"
)

// Mid-stream continuation (docs/behaviour.md#streams, docs/design.md
// "Mid-stream continuation"). On a route with on_stream_cut: continue,
// every chunk of a stream goes through a splice.Seam on its way to the
// Output. A stream cut after the commit point is not ended at once: the walk
// goes on, as the route's table says for the class of the cut (next
// endpoint, next target, tail), and each attempt after the cut is a
// continuation — by prefill where the target accepts it, else by replay.
// The stream ends with the Output's Fail only when no continuation may be
// made or none resumed it (settle). A route that does not continue has no
// continuation (walk.cont is nil) and pays nothing for it.

// continuation is one stream's continuation state. Its methods are safe on
// a nil receiver, which stands for a route that does not continue.
type continuation struct {
	seam      splice.Seam
	max       int       // max_continuations
	cuts      int       // cuts continued so far
	committed bool      // the Output has had its Commit
	since     time.Time // ... at this time
	// failure ends the stream when nothing resumes it: the cut's, as the
	// stream path would have sent it, or a divergence.
	failure *Failure
	// refused holds the targets that refused a prefill in this request:
	// they are continued by replay.
	refused map[*targetRT]bool
	// ctx bounds the continuation's attempts until their first content: the
	// route's deadline, anew from the cut, within max_stream_duration.
	ctx    context.Context
	cancel context.CancelFunc

	// The cut being continued (cutting), and its current attempt.
	cutting   bool
	open      bool // the cut's outcome is not yet counted
	cut       splice.Cut
	cutClass  classify.Class
	attempted bool // an attempt was made for this cut
	resumed   bool // ... and new content reached the client
	diverged  bool
	mode      splice.Mode
	join      *splice.Join
	replay    *splice.Replay
}

// newContinuation returns the continuation state of call on route r, or
// nil when the route does not continue cut streams.
func newContinuation(r *routeRT, call *Call) *continuation {
	if !call.Stream || call.Out == nil || !r.cfg.Continues() || r.cfg.MaxContinuations <= 0 {
		return nil
	}
	return &continuation{max: r.cfg.MaxContinuations}
}

// first reports whether this commit is the stream's first (the Output is to
// be told): always without continuation, once with it.
func (c *continuation) first() bool {
	if c == nil {
		return true
	}
	if c.committed {
		return false
	}
	c.committed, c.since = true, time.Now()
	return true
}

// canonical reports whether the attempt to come continues a cut: it must
// speak canonical chat, like the stream it continues, never a native API.
func (c *continuation) canonical() bool { return c != nil && c.cutting }

// report records usage an upstream reported outside a chunk the Seam sees.
func (c *continuation) report(u *provider.Usage) {
	if c != nil {
		c.seam.Report(u)
	}
}

// limit is the context an attempt and the budget run under: ctx (the
// route's deadline) until a cut, the continuation's after it.
func (w *walk) limit(ctx context.Context) context.Context {
	if w.cont != nil && w.cont.ctx != nil {
		return w.cont.ctx
	}
	return ctx
}

// maxStream is what remains of the route's max_stream_duration for an
// attempt committing now: all of it for the stream's first commit, the rest
// of it (measured from that first commit) for a continuation.
func (w *walk) maxStream() time.Duration {
	max := w.r.cfg.MaxStreamDuration
	if w.cont == nil || max <= 0 || !w.cont.committed {
		return max
	}
	return maxDur(max-time.Since(w.cont.since), time.Nanosecond)
}

func maxDur(a, b time.Duration) time.Duration {
	if a > b {
		return a
	}
	return b
}

// begin prepares an attempt at e: after a cut, a continuation by prefill
// where e's target accepts it (and has not refused it), else by replay.
func (c *continuation) begin(e *endpointRT) {
	if c == nil || !c.cutting {
		return
	}
	c.seam.Next()
	c.attempted = true
	c.join, c.replay = nil, nil
	c.mode = c.cut.Mode(!c.refused[e.target] && acceptsPrefill(e))
	if c.mode != splice.ByPrefill {
		c.mode, c.replay = splice.ByReplay, splice.NewReplay(c.cut.Text)
	}
}

// acceptsPrefill reports whether a continuation may go to e by prefill:
// the target's prefill where written, else the dialect's default — but an
// Anthropic endpoint whose model refuses prefill (Claude from the 4.6
// generation on: anthropic.TakesPrefill) is continued by replay from the
// start. Before review 66d each cut continued at such a model cost one
// refused request (a 400, a round trip before the replay, and the probe's
// slot) per target in each continued stream.
func acceptsPrefill(e *endpointRT) bool {
	dl := e.prov.cfg.Dialect
	if e.target.cfg.Prefill == nil && dl == classify.Anthropic && !anthropic.TakesPrefill(e.ep.Model) {
		return false
	}
	return e.target.cfg.AcceptsPrefill(dl)
}

// toReplay makes the next request a continuation by replay, not by
// prefill (its decoding would take the translation past what any may
// cost: newRequest).
func (c *continuation) toReplay() {
	c.mode, c.replay = splice.ByReplay, splice.NewReplay(c.cut.Text)
}

// prefilling reports whether the next request is a continuation by
// prefill, which decodes the body to build (request).
func (c *continuation) prefilling() bool {
	return c != nil && c.cutting && c.mode == splice.ByPrefill
}

// request is the request to send to e: r, or for a continuation by prefill
// r with the delivered text as a trailing assistant message and the
// client's completion-token cap lowered by the tokens already delivered
// (docs/behaviour.md#streams). A prefill that cannot be built, or for which
// nothing of the cap is left, falls back to replay, which generates the
// whole answer again under the client's cap as sent.
func (c *continuation) request(e *endpointRT, r *provider.Request) *provider.Request {
	if c == nil || !c.cutting || c.mode != splice.ByPrefill {
		return r
	}
	body, join, err := splice.Prefill(r.Body, c.cut.Text, e.prov.cfg.Dialect)
	if err == nil {
		body, err = splice.LowerCap(body, c.cut.Tokens)
	}
	if err != nil {
		c.mode, c.replay = splice.ByReplay, splice.NewReplay(c.cut.Text)
		return r
	}
	c.join = join
	return &provider.Request{Body: body, Stream: r.Stream, Translated: r.Translated, CachePrompt: r.CachePrompt}
}

// note records on the attempt just made that it continued a cut.
func (c *continuation) note(w *walk) {
	if c == nil || !c.cutting || len(w.rec.Attempts) == 0 {
		return
	}
	w.rec.Attempts[len(w.rec.Attempts)-1].Continuation = &decision.Continuation{
		N: c.cuts, Mode: c.mode.String(), OffsetChars: c.cut.Chars, CutClass: c.cutClass.String()}
}

// write passes one chunk of the current attempt to the client: through the
// Join (prefill) or the Replay (replay) after a cut, then the Seam.
func (c *continuation) write(w *walk, o *outcome, b []byte) bool {
	var err error
	if c.cutting {
		switch {
		case c.join != nil:
			b, err = c.join.Chunk(b)
		case c.replay != nil:
			b, err = c.replay.Chunk(b)
		}
		if errors.Is(err, splice.ErrDiverged) {
			w.diverged(o)
			return false
		}
	}
	if err == nil && b != nil {
		b, err = c.seam.Chunk(b)
	}
	if err != nil { // not a chunk the seam can read: skipped, as a malformed event
		o.malformed++
		return true
	}
	if b == nil {
		return true
	}
	if !w.sent(o, w.call.Out.Chunk(b)) {
		return false
	}
	if c.cutting {
		c.resumed = true
	}
	return true
}

// diverged ends the attempt whose replay did not reproduce the delivered
// text: it ran (billable), but it is nobody's fault — no count, no cooling —
// and the stream ends with the cut's class and an error event saying so.
func (w *walk) diverged(o *outcome) {
	c := w.cont
	c.diverged = true
	o.billable, o.ownLimit = true, true
	msg := "the stream was cut and its continuation by replay diverged from the text already delivered; the stream ends here"
	o.failWith(classify.Verdict{Class: c.cutClass, Evidence: "continue:replay-diverged"}, msg)
	f := &Failure{Status: o.status, Class: c.cutClass, Message: msg}
	if c.failure != nil {
		f.Status, f.Message = c.failure.Status, c.failure.Message+"; "+msg
	}
	c.failure = f
	w.count("diverged")
}

// continueCut decides whether the committed stream o just cut is continued;
// true means the walk goes on, as the table says for the class of the cut.
func (w *walk) continueCut(o *outcome) bool {
	c := w.cont
	if c == nil {
		return false
	}
	if c.diverged {
		return false
	}
	if c.open {
		// The continuation this attempt made was cut in its turn.
		if c.resumed {
			w.count("ok")
		} else {
			w.count("failed")
		}
	}
	if o.native {
		// The client has the upstream's own events, which the Seam cannot
		// read or continue (docs/behaviour.md#streams).
		c.open, c.attempted = true, false
		w.count("native")
		return false
	}
	cut := c.seam.Cut()
	if cut.Reason == "" && manyChoices(w.call.Body) {
		// The Seam knows the choices it has seen; a cut may come before
		// the second choice's first chunk (review 39g).
		cut.Reason = "more than one choice (n > 1)"
	}
	c.cutting, c.open, c.attempted, c.resumed = true, true, false, false
	c.cut, c.cutClass = cut, o.verdict.Class
	remaining := time.Duration(1)
	if max := w.r.cfg.MaxStreamDuration; max > 0 {
		remaining = max - time.Since(c.since)
	}
	switch {
	case cut.Reason != "":
		w.count("unsplicable")
		return false
	case o.ownLimit, c.cuts >= c.max, remaining <= 0:
		// max_stream_duration ended the stream, or no continuation is left.
		w.count("budget")
		return false
	}
	c.cuts++
	if c.cancel != nil {
		c.cancel()
	}
	d := w.r.cfg.Deadline
	if max := w.r.cfg.MaxStreamDuration; max > 0 && remaining < d {
		d = remaining
	}
	c.ctx, c.cancel = context.WithTimeout(w.base, d)
	return true
}

// manyChoices reports whether the canonical chat request body asks for
// more than one choice (n > 1). The front refuses a repeated member and one
// named n only by case folding, so the exact member is the one upstreams read.
func manyChoices(body []byte) bool { return choicesAsked(body) > 1 }

// choicesAsked is the number of choices the canonical chat request body
// asks for: its n, 1 when it has none (or one no upstream reads as more).
func choicesAsked(body []byte) int {
	m := rawjson.Member(body, "n")
	if m == nil { // most requests: no decoding, no allocation (every attempt reads it: ceiling.go)
		return 1
	}
	if i, ok := provider.PlainInt(m); ok {
		return min(max(i, 1), provider.MaxParts+1)
	}
	var n float64
	if json.Unmarshal(m, &n) != nil || n <= 1 {
		return 1
	}
	if n > provider.MaxParts {
		return provider.MaxParts + 1
	}
	return int(math.Ceil(n))
}

// refusedPrefill reports whether o is a continuation by prefill that its
// target refused (splice.PrefillRefused): the same endpoint is then tried
// again by replay, and the refusal is never the client's error.
func (w *walk) refusedPrefill(e *endpointRT, o *outcome) bool {
	if !w.prefillRefusal(o) {
		return false
	}
	c := w.cont
	if c.refused == nil {
		c.refused = map[*targetRT]bool{}
	}
	c.refused[e.target] = true
	w.d.opt.Metrics.Continuation(w.r.name, splice.ByPrefill.String(), "refused")
	return true
}

// prefillRefusal is refusedPrefill's test, changing nothing: finish reads
// it too (a probe whose request is sent again, here by replay, keeps its
// slot for the resend: review 65k, as review 48c for a refused member).
func (w *walk) prefillRefusal(o *outcome) bool {
	c := w.cont
	if c == nil || !c.cutting || c.mode != splice.ByPrefill || o.committed || o.canceled || o.ok {
		return false
	}
	return splice.PrefillRefused(o.status, []byte(o.message))
}

// count records the outcome of the current cut in metrics, once.
func (w *walk) count(outcome string) {
	c := w.cont
	mode := "none"
	if c.attempted {
		mode = c.mode.String()
	}
	w.d.opt.Metrics.Continuation(w.r.name, mode, outcome)
	c.open = false
}

// settle ends a continued stream: when the Output had its Commit, the
// result is committed, and a failure reaches the client as the Output's
// Fail — the cut's (or the divergence's), never a continuation attempt's
// own answer such as a refused prefill.
func (w *walk) settle(res *Result) *Result {
	c := w.cont
	if c == nil {
		return res
	}
	if c.cancel != nil {
		c.cancel()
	}
	if !c.committed {
		return res
	}
	res.Committed = true
	switch {
	case res.Canceled:
		if c.open {
			w.count("canceled")
		}
		// A stream ended by the shutdown while a continuation was being
		// sought has not been told yet (streamEnd tells a committed attempt).
		if w.shuttingDown() && (w.last == nil || !w.last.canceled || !w.last.committed) {
			w.errorEvent(shutdownFailure())
		}
	case res.Failure == nil:
		if c.open {
			w.count("ok")
		}
	default:
		if c.open {
			if w.stopped != stopNone {
				w.count("budget")
			} else {
				w.count("failed")
			}
		}
		if c.failure != nil {
			res.Failure = c.failure
		}
		w.errorEvent(res.Failure)
	}
	return res
}
