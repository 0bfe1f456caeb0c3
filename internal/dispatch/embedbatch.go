package dispatch

import (
	"context"
	"net/http"
	"net/http/httptrace"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/rawjson"
)

// Embeddings in batches (docs/doors.md, "Embeddings"). An OpenAI
// embeddings request may hold 2048 inputs; an endpoint whose adapter takes
// fewer in one call (provider.EmbeddingsBatcher: Gemini's
// batchEmbedContents takes 100) gets the request as several calls, one
// after another, within one attempt, and the vectors are joined in input
// order. Each call is one upstream request with the provider's own
// timeouts; the route's deadline covers them all. The attempt is one in
// the record (Attempt.Batches says how many calls it took and how many
// answered), one report to health and one against max_attempts.
//
// A call that fails ends the attempt there: its status, class, evidence
// and message are the attempt's, and the walk goes on as that class says.
// Each call is billable by the rules of a whole attempt
// (docs/behaviour.md#budgets), and the attempt is billable when any call
// was: the calls answered before the failure ran and are billed by the
// upstream, so the attempt counts against max_billable_attempts, its cost
// is unknown at a priced target (Gemini counts no tokens for embeddings),
// and a client's limits count the input of those calls. A retry at the
// same endpoint (a server error, a short rate limit) starts at the call
// that failed and uses the vectors answered before it (Batches.Reused):
// they are not asked for, nor billed, twice. Another endpoint starts
// afresh: an answer never mixes the vectors of two endpoints, which may
// be two models.

// keptBatches is what the last batched attempt at an endpoint had answered
// when it failed: the lists of its first calls, and whether each reported
// usage.
type keptBatches struct {
	key   health.Key
	lists [][]byte
	usage bool
}

// batched makes the attempt at e when e takes the call's embeddings in
// several calls, and returns nil when it takes them in one (upstreamCall
// then makes it).
func (w *walk) batched(ctx context.Context, e *endpointRT) *outcome {
	if w.call.Op != OpEmbeddings {
		return nil
	}
	parts := w.embedBatches(e)
	if parts == nil {
		return nil
	}
	return w.batchedCall(ctx, e, parts)
}

// embedBatches splits the embeddings request for e into the requests e's
// adapter takes in one call; nil when it takes the request whole (or the
// request is one it refuses anyway: the attempt then says why).
func (w *walk) embedBatches(e *endpointRT) []provider.Request {
	b, ok := e.prov.adapter.(provider.EmbeddingsBatcher)
	if !ok {
		return nil
	}
	n := b.MaxEmbeddingsInputs()
	emb, err := provider.EmbeddingsOf(w.embeddingsFor(e))
	if err != nil || emb.Tokens || n <= 0 || len(emb.Texts) <= n {
		return nil
	}
	parts := make([]provider.Request, 0, (len(emb.Texts)+n-1)/n)
	for i := 0; i < len(emb.Texts); i += n {
		p := *emb
		p.Texts, p.First = emb.Texts[i:min(i+n, len(emb.Texts))], i
		parts = append(parts, provider.Request{Embeddings: &p})
	}
	return parts
}

// batchedCall is upstreamCall for an embeddings request sent to e as
// parts, one call each, from the first call an earlier attempt at e did not
// answer.
func (w *walk) batchedCall(ctx context.Context, e *endpointRT, parts []provider.Request) *outcome {
	start := time.Now()
	actx, cancel := context.WithCancel(w.base)
	defer cancel()
	kept := &w.call.emb.kept
	if kept.key != e.key { // another endpoint's vectors are no use here
		*kept = keptBatches{key: e.key, usage: true}
	}
	from := len(kept.lists)
	o, wd := &outcome{batches: &decision.Batches{Of: len(parts), Reused: from}}, &watchdog{cancel: cancel}
	wd.watchDeadline(ctx)
	defer wd.release()
	// Every call is built before the first is sent: an input the dialect
	// cannot express (an empty text) sends none.
	reqs := make([]*http.Request, len(parts))
	counted, ok := w.buildCalls(actx, e, parts, from, reqs, o)
	if counted > 0 {
		defer w.call.Allowance.Release(counted)
	}
	if !ok {
		return o
	}
	lists, usage := kept.lists, kept.usage
	billed := 0 // calls that ran: those answered, and a failed one that may have run
	held := 0   // bytes of the answers held, bounded as one whole answer is (maxAnswer)
	for _, l := range lists {
		held += len(l)
	}
	for i := from; i < len(parts); i++ {
		o.status, o.upstreamID, o.billable, o.ok, o.body, o.usage = 0, "", false, false, nil, nil
		o.sent.Store(false)
		w.call.emb.part = &parts[i] // what decoding its answer reads (embeddingsFor)
		w.batchCall(e, reqs[i], wd, o, start, i == from)
		w.call.emb.part = nil
		if o.billable {
			billed++
		}
		if !o.ok {
			break
		}
		if held += len(o.body); held > maxAnswer {
			o.ok = false
			vectorsTooLarge(o, "the upstream's vectors exceed the 64 MiB the gateway holds together: ask for encoding_format base64 (a quarter of the size as JSON floats), or send fewer inputs")
			break
		}
		lists = append(lists, o.body)
		usage = usage && o.usage != nil
	}
	o.batches.Answered = len(lists) - from
	o.billable = billed > 0
	if w.call.Metered && billed > 0 {
		o.input = inputOf(parts[from : from+billed])
	}
	if !o.ok {
		kept.lists, kept.usage = lists, usage // for a retry here to go on from
		o.body, o.usage = nil, nil
		return o
	}
	*kept = keptBatches{}
	joined, err := provider.JoinEmbeddings(lists)
	if err != nil {
		o.ok = false
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
		return o
	}
	o.body, o.usage = joined, nil
	if usage {
		o.usage = usageOf(joined)
	}
	if o.body, err = w.whole(joined, o); err != nil { // in the door's words (the Gemini door's)
		o.ok, o.body = false, nil
	}
	return o
}

// batchCall makes one call of a batched attempt, as upstreamCall makes a
// whole attempt's: o is the attempt's outcome, cleared for the call.
func (w *walk) batchCall(e *endpointRT, hreq *http.Request, wd *watchdog, o *outcome, start time.Time, first bool) {
	trace := &httptrace.ClientTrace{WroteRequest: func(i httptrace.WroteRequestInfo) {
		if i.Err == nil { // a write that failed never reached the upstream whole
			o.sent.Store(true)
		}
	}}
	gctx, turn := e.prov.gate.hook(hreq.Context(), trace)
	hreq = hreq.WithContext(httptrace.WithClientTrace(gctx, trace))
	w.call.keepSent(nil, false) // no sent body of another attempt is this call's evidence (review 58b)
	sendOnce(hreq, o)
	wd.arm(PhaseHeaders, e.prov.cfg.Timeout)
	resp, err := turn.do(e.prov.client, hreq)
	if err != nil {
		w.transportFailure(o, err, wd.expired())
		return
	}
	if first {
		o.ttfb = time.Since(start)
	}
	if received(e, resp, o) {
		w.plain(e, resp, wd, o)
	}
}

// buildCalls makes the calls of parts[from:] into reqs, for a dialect that
// translates them within a reservation of their cost from the front's
// allowance (embedCost); held is what then stays counted until they end,
// their bodies, for the caller to give back. ok is false when a call could
// not be made (o says why; nothing is held).
func (w *walk) buildCalls(ctx context.Context, e *endpointRT, parts []provider.Request, from int, reqs []*http.Request, o *outcome) (held int64, ok bool) {
	em := e.prov.adapter.(provider.Embedder) // embedBatches found a Batcher; only Embedders serve embeddings
	al, cost := w.call.Allowance, w.embedCost(e)
	if al == nil {
		cost = 0
	}
	if cost > 0 && cost > al.Cap() {
		withHeaders(e, nil, errTooCostly, o)
		return 0, false
	}
	if cost > 0 && !al.Hold(cost) {
		withHeaders(e, nil, errAllowance, o)
		return 0, false
	}
	ok = true
	for i := from; i < len(parts) && ok; i++ {
		hreq, err := em.NewEmbeddingsRequest(ctx, e.ep, &parts[i])
		if reqs[i] = withHeaders(e, hreq, err, o); reqs[i] == nil {
			ok = false
		} else {
			held += max(hreq.ContentLength, 0)
		}
	}
	if cost == 0 || !ok {
		held = 0
	}
	if cost > 0 {
		al.Settle(cost, held)
	}
	return held, ok
}

// inputOf is the texts of parts as JSON, which a client's limits estimate
// the input of (estimate.go).
func inputOf(parts []provider.Request) []byte {
	var texts []string
	for _, p := range parts {
		texts = append(texts, p.Embeddings.Texts...)
	}
	b, _ := rawjson.Marshal(texts)
	return b
}
