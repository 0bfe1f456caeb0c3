package dispatch

import (
	"errors"
	"io"
	"net/http"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
)

// What makes an attempt billable beyond its plain cases (docs/behaviour.md#budgets),
// and what keeps one attempt from being sent, and paid, twice.

// errSentWhole is what the transport meets when it would send a request
// again after it was written whole (sendOnce).
var errSentWhole = errors.New("the upstream failed the request after it was written whole; " +
	"it may have run, so it is not sent again unseen")

// sendOnce keeps net/http from sending hreq again on its own once it was
// written whole (o.sent). Its HTTP/2 transport re-sends a request it can
// rewind after a stream reset with PROTOCOL_ERROR — which an upstream may
// send after it read, and ran, the request — without limit across
// connections, each send inside one attempt that counts once against
// max_billable_attempts. It re-sends the same way after REFUSED_STREAM or a
// GOAWAY that left the stream out, which the protocol says were never run;
// the rewind cannot tell these apart, so none of them is re-sent once the
// request was written whole: the attempt fails, billable (it was sent), and
// the walk decides what follows, by its class and budget. The cost is that
// a GOAWAY race (a load balancer cycling its connections) is a failed
// attempt the walk retries or moves on from, and under
// max_billable_attempts: 1 fails the request (docs/behaviour.md#budgets). A
// request not yet written whole is rewound as before (a dial gate's start
// over, a connection that failed before the write).
func sendOnce(hreq *http.Request, o *outcome) {
	rewind := hreq.GetBody
	if rewind == nil {
		return
	}
	hreq.GetBody = func() (io.ReadCloser, error) {
		if o.sent.Load() {
			return nil, errSentWhole
		}
		return rewind()
	}
}

// countedFailure makes a 2xx that carried a failure (a block, a malformed
// call, an error) billable when its upstream reported tokens used: it
// counted them, so it may charge for them (docs/behaviour.md#budgets), and
// what it counted is recorded. An answer whose usage cannot be read, or
// counts nothing (each count read as account does: negative as 0), is
// left as it was.
func (w *walk) countedFailure(e *endpointRT, body []byte, o *outcome) {
	if w.call.Op == OpEmbeddings {
		return
	}
	u := failedUsage(e, body)
	if u == nil {
		var err error
		if _, u, err = w.decodeWhole(e, body); err != nil {
			return
		}
	}
	if u == nil || count(u.PromptTokens)+count(u.CompletionTokens) == 0 { // bounded: a sum of huge counts does not wrap
		return
	}
	o.billable, o.usage = true, u
}

// gatewayTimeout reports whether status is a gateway's timeout waiting for
// its origin (504; Cloudflare's 524): the gateway had handed it the request
// whole, so it may have run it and charge for it, as it may when Detour's
// own timeout fires after sending (docs/behaviour.md#budgets).
func gatewayTimeout(status int) bool {
	return status == http.StatusGatewayTimeout || status == 524
}

// unreadWhole marks o for its ceiling (outcome.unread) when it is the
// attempt of a whole answer to a limited key's chat request (a key with a
// rate or a budget: Call.Limited) that was sent and ends billable with no
// answer read because time ran out: Detour's timeout, or the route's
// deadline, after the send (a 2xx body's read included); a gateway's 504
// or 524. Its upstream writes and bills the whole answer all the same, so the
// key's limits count it at the most output the request allowed
// (unreadOutput, ceiling.go; docs/behaviour.md#budgets). Not a lost
// connection's (transportFailure: the upstream most likely failed), a stream's
// (what was relayed is counted, and a closed stream ends generation at the
// providers), an unlimited key's (nothing to spend), an embeddings call's
// (no output) or one ended by a shutdown's grace (the operator's doing).
func (w *walk) unreadWhole(o *outcome) {
	o.unread = o.billable && o.sent.Load() && w.call.Limited && !w.call.Stream &&
		w.call.Op == OpChat && !w.call.advisory() && !w.shuttingDown()
}

// unreadLimit is the max_tokens a chat request translated for a Claude
// target went with (anthropic.SentMaxTokens: the client's limit capped at
// the model's maximum, or that maximum where it set none), which bounds
// what its unread answer is counted at (unreadOutput); 0 for any other
// attempt, whose request's own limit is what went.
func (w *walk) unreadLimit(e *endpointRT, o *outcome) int {
	if o.native || e.prov.cfg.Dialect != classify.Anthropic || w.call.Op != OpChat {
		return 0
	}
	n, _ := requestOutput(w.call.Body) // Claude answers one choice: n above 1 is never translated
	return anthropic.SentMaxTokens(e.ep.Model, n, n > 0, len(w.call.Body))
}

// failedUsage reads the usage of an answer its adapter will not decode (a
// Gemini prompt block, a candidate ended with no content), where the
// adapter can; nil otherwise.
func failedUsage(e *endpointRT, body []byte) *provider.Usage {
	if fu, ok := e.prov.adapter.(interface {
		FailedUsage(body []byte) *provider.Usage
	}); ok {
		return fu.FailedUsage(body)
	}
	return nil
}
