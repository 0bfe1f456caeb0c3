package dispatch

import (
	"bytes"
	"context"
	"errors"
	"net/http"
	"slices"
	"strconv"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
)

// maxAnswer bounds a non-stream upstream answer held in memory.
const maxAnswer = 64 << 20

// byteOrderMark is the UTF-8 byte order mark.
var byteOrderMark = []byte("\xef\xbb\xbf")

// evBodyCut ends the evidence of an error answer whose body was cut short
// or stalled (errorAnswerCut).
const evBodyCut = " (its body cut short)"

// errorAnswerCut reports whether a failed read of the body of an answer of
// status is judged as the answer itself, from its status, headers and the
// part of the body that came: an error answer (not 2xx) whose body the
// upstream cut or stalled past its timeout. Its status and headers already
// say what it is (a 429 and its Retry-After, a 401); filed as a broken
// connection instead, a rate limit was retried at once and billed, and an
// invalid key counted as a server error and paged nobody (review 41c). Not
// when the client left or the route's deadline passed: those end the
// attempt as before.
func (w *walk) errorAnswerCut(status int, expired Phase) bool {
	return status/100 != 2 && !errors.Is(w.base.Err(), context.Canceled) && expired != PhaseDeadline
}

// plain reads a whole (non-stream) answer.
func (w *walk) plain(e *endpointRT, resp *http.Response, wd *watchdog, o *outcome) {
	defer resp.Body.Close()
	limit := int64(maxAnswer)
	if resp.StatusCode/100 != 2 {
		limit = classify.MaxBody + secretSlack // past the classifier's read: for the message's scrubbing (messageOf)
	}
	wd.arm(PhaseBody, e.prov.cfg.Timeout)
	body, err := readAtMost(resp.Body, limit+1, resp.ContentLength)
	tooLarge := int64(len(body)) > limit // as sent, the mark below included
	// A UTF-8 byte order mark before the answer (.NET's and some Java
	// servers' writers add one) is no part of it: the adapters, the
	// classifier and the client read the JSON after it.
	body = bytes.TrimPrefix(body, byteOrderMark)
	o.answerBytes += int64(len(body)) // an embeddings attempt's batches add up (embedbatch.go)
	cut := err != nil && w.errorAnswerCut(resp.StatusCode, wd.expired())
	if err != nil && !cut {
		w.transportFailure(o, err, wd.expired())
		if resp.StatusCode/100 == 2 && w.call.Metered && w.call.Op != OpEmbeddings {
			// A whole answer's headers come once the model has written
			// it all: cut after them, it was generated and billed in full,
			// and what arrived is a floor of its output, at four bytes a
			// token (hostile 57: the key counted none, and paid again).
			o.delivered = capOutput(len(body)/4, w.call.sent())
		}
		return
	}
	if tooLarge && resp.StatusCode/100 == 2 {
		switch {
		case w.call.Op == OpEmbeddings && slices.Contains(w.dropped[e.key], encodingMember):
			// Sent without the member after it refused base64 (embedformat.go).
			vectorsTooLarge(o, "the upstream answer exceeds the 64 MiB the gateway holds: the upstream refuses base64 encoding, and its JSON floats are larger; send fewer inputs")
		case w.call.Op == OpEmbeddings && askedBase64(w.call.Body):
			// Asked for base64 and answered floats (a server that ignores the
			// member): the advice to ask for base64 would mislead (review 63m).
			vectorsTooLarge(o, "the upstream answer exceeds the 64 MiB the gateway holds: it answered JSON floats though base64 was asked; send fewer inputs")
		case w.call.Op == OpEmbeddings:
			vectorsTooLarge(o, "the upstream answer exceeds the 64 MiB the gateway holds: ask for encoding_format base64 (a quarter of the size as JSON floats), or send fewer inputs")
		case mayAnswerLarge(w.call.sent(), w.call.completions()):
			// The client's own body: a passthrough (the Completions door)
			// has no canonical one (review 65h: its answer past 64 MiB was
			// server_error, counted, retried, and charged no output).
			msg := "the upstream answer exceeds the 64 MiB the gateway holds: ask for fewer choices (n), fewer top_logprobs, or a lower max_completion_tokens"
			if w.call.completions() {
				msg = "the upstream answer exceeds the 64 MiB the gateway holds: ask for fewer choices (n, best_of), a lower logprobs, a lower max_tokens, or send fewer prompts at once"
			}
			vectorsTooLarge(o, msg)
			if w.call.Metered {
				o.delivered = largeOutputFloor(w.call.sent(), len(body), w.call.completions())
			}
		default:
			answerTooLarge(o, "the upstream answer exceeds 64 MiB")
		}
		return
	}
	wide := body
	if resp.StatusCode/100 != 2 && len(body) > classify.MaxBody+1 {
		body = body[:classify.MaxBody+1] // what the classifier read before
	}
	v := w.classify(classify.Response{Status: resp.StatusCode, Header: resp.Header, Body: body,
		Dialect: e.prov.cfg.Dialect, Provider: e.prov.cfg.Name, Model: e.ep.Model}, resp.StatusCode/100 != 2)
	if resp.StatusCode/100 != 2 {
		if !v.Failed {
			v = classify.Verdict{Class: classify.Unknown, Evidence: "status:" + strconv.Itoa(resp.StatusCode)}
		}
		v = w.unservedPath(v, o, body, e.ep.Model)
		if cut {
			v.Evidence += evBodyCut
		}
		o.failWith(v, w.messageOf(wide, true))
		o.upstreamError(e, body)
		o.billable = o.sent.Load() && gatewayTimeout(resp.StatusCode)
		w.unreadWhole(o)
		return
	}
	switch {
	case v.Failed:
		// LM Studio answers a path it lacks with a 200 and its missing-route
		// words (review 66g): at a claimed path, the claim's fault too.
		w.failed2xx(e, body, w.unservedPath(v, o, body, e.ep.Model), o)
	case o.native:
		w.nativeAnswer(e, body, o)
	default:
		out, usage, err := w.decodeWhole(e, body)
		if na := (*provider.NoAnswer)(nil); errors.As(err, &na) {
			// The classifier read the answer's first classify.MaxBody
			// bytes; what holds nothing for the client is judged by its
			// digest, its outcome perhaps past them.
			if v := w.classify(classify.Response{Status: resp.StatusCode, Header: resp.Header, Body: na.Digest,
				Dialect: e.prov.cfg.Dialect, Provider: e.prov.cfg.Name, Model: e.ep.Model}, false); v.Failed {
				w.failed2xx(e, body, v, o)
				return
			}
			if na.Answer != nil { // not a failure after all: the answer the adapter made
				out, usage, err = na.Answer, usageOf(na.Answer), nil
			}
		}
		o.billable = true
		if err != nil {
			o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
			return
		}
		if w.call.Stream {
			// A whole answer to a stream request: it ran and was billed, so
			// the client gets it, as a stream.
			w.streamWhole(e, out, o)
			return
		}
		o.usage = usage // it ran: what it used counts, whether or not the door can say it
		if usage == nil && w.call.Metered && w.call.Op != OpEmbeddings {
			// No usage read (none sent, or a count that does not read): a
			// client's limits count the answer's output, as a stream's are
			// counted by the events served (hostile review 51b: a whole
			// answer with one float count was charged its prompt alone).
			// Only where a key's limits may read it: the answer is decoded
			// for it.
			o.delivered = answerOutputEstimate(out, w.call.Body)
		}
		if out, err = w.whole(out, o); err != nil {
			return
		}
		o.ok, o.body = true, out
	}
}

// failed2xx fails the attempt on a 2xx answer v says failed: billable
// when the answer reports usage (countedFailure).
func (w *walk) failed2xx(e *endpointRT, body []byte, v classify.Verdict, o *outcome) {
	o.failWith(v, w.messageOf(body, false))
	o.upstreamError(e, body)
	o.meant = inbandStatus(body)
	w.countedFailure(e, body, o)
}

// answerTooLarge fails o, a whole answer past the 64 MiB the gateway holds
// (maxAnswer): far above what a working provider sends (an answer that never
// ends), so server_error, billable: the upstream ran it.
func answerTooLarge(o *outcome, msg string) {
	o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "answer:too large"}, msg)
	o.billable = true
}

// vectorsTooLarge fails o, an answer the upstream gave in full but larger
// than the gateway holds, to a request that asked for that much: an
// embeddings request (2,048 texts at 3,072 dimensions as JSON floats are
// ~82 MB), or a chat request for several choices or log-probabilities
// (mayAnswerLarge). The size is the request's, not the endpoint's fault,
// so class overflow (nothing counts or cools: a client's request cannot
// cool a provider), billable, and settled: the same endpoint would answer
// the same, billed again, so it is not asked again and the client is told
// not to retry (probe c50f: a full embedMany was paid for twenty times
// over, then again by the SDK's own retries). Nor is another endpoint of
// the same target, the same model (sameModel): hostile review 51 found the
// same answer run and paid at each of a target's providers. Another target
// (another model, fewer dimensions) may still fit.
func vectorsTooLarge(o *outcome, msg string) {
	o.failWith(classify.Verdict{Class: classify.Overflow, Evidence: "answer:too large"}, msg)
	o.billable, o.settled, o.sameModel = true, true, true
}
