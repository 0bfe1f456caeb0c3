package dispatch

import (
	"context"
	"errors"
	"net/http"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/offstack"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
)

// Native is a client request in another client API than Chat Completions
// (docs/doors.md, "Passthrough"). A target whose adapter serves API gets
// Body as the client sent it, only "model" replaced, and the answer goes
// back to the client as it came: Result.Body with Result.Native, or each
// stream event's raw data with Commit.Native. Classification, the commit
// point, health and budgets are the same as for a translated request.
type Native struct {
	// API is provider.APIMessages, provider.APICountTokens,
	// provider.APIResponses, provider.APICompletions,
	// provider.APIGenerateContent or provider.APIGeminiCountTokens.
	API string
	// Body is the client's JSON exactly as sent.
	Body []byte
	// Header is the client's headers the API forwards upstream (for
	// Anthropic targets: anthropic-version, anthropic-beta). The server
	// fills it with NativeHeader, the adapter's allow-list; it never holds
	// credentials. Nil: none.
	Header http.Header
	// Untranslated, when the Call's Body is nil, says why the request has
	// no canonical translation; a target that does not serve API fails
	// with it (class unknown, evidence "translate"), and the walk moves on.
	// An error with an ErrorCode() string method gives the failure its
	// code (Failure.Code). Nil: no reason given.
	Untranslated error
	// Translate, when set and the Call's Body is nil, makes the canonical
	// translation at the first attempt at a target that needs it, once
	// (its error becomes Untranslated): a door whose route begins with a
	// target serving API leaves it to the walk, so a request that target
	// answers is never translated (docs/doors.md, "How the door is
	// wired"). It runs within a reservation of TranslationCost(Body) from
	// the Call's Allowance, and the body it makes stays counted until the
	// request ends, as a door's translation does.
	Translate func() ([]byte, error)
}

// translateLate makes the call's canonical body with Native.Translate when
// a door left it to the walk (see Native.Translate). An attempt the
// allowance refuses is not made (errAllowance, errTooCostly) and a later
// attempt tries again; a translation's error stands for every later one.
func (w *walk) translateLate() error {
	n := w.call.Native
	if w.call.Body != nil || n == nil || n.Translate == nil {
		return nil
	}
	var cost int64
	al := w.call.Allowance
	if al != nil {
		cost = TranslationCost(n.Body)
		if cost > al.Cap() {
			return errTooCostly
		}
		if !al.Hold(cost) {
			return errAllowance
		}
	}
	// Off the handler's stack: a door's translation decodes the body whole
	// (offstack).
	body, err := offstack.Run2(n.Translate)
	n.Translate = nil
	if err != nil {
		body, n.Untranslated = nil, err
	}
	w.call.Body = body
	if al != nil {
		al.Settle(cost, int64(len(body))) // kept until the request ends
	}
	return nil
}

// NativeHeader is the part of the client's headers h a Native request
// forwards upstream (Native.Header): the Anthropic adapter's allow-list,
// never credentials.
func NativeHeader(h http.Header) http.Header { return anthropic.ForwardedHeader(h) }

// NativeHeaderBytes is the size of the lines of h NativeHeader forwards,
// each counted whole (the front bounds it).
func NativeHeaderBytes(h http.Header) int { return anthropic.ForwardedBytes(h) }

// nativeAt returns e's adapter's Native side when it serves the call's
// Native API, else nil.
func (w *walk) nativeAt(e *endpointRT) provider.Native {
	if w.call.Native == nil || w.cont.canonical() {
		return nil
	}
	return provider.NativeOf(e.prov.adapter, w.call.Native.API)
}

// newRequest builds the upstream request for e: the client's own body when
// e serves its API (o.native is then set), else the canonical translation.
func (w *walk) newRequest(ctx context.Context, e *endpointRT, o *outcome) (*http.Request, error) {
	if w.call.Op == OpEmbeddings {
		return w.embedRequest(ctx, e, o) // embed.go
	}
	if n := w.nativeAt(e); n != nil {
		o.native = true
		c := w.call.Native
		if d, ok := n.(provider.NativeDecoder); ok && d.NativeDecodes(c.API, c.Body) {
			// The adapter decodes the body whole to build the request (a
			// Gemini body holding a sealed signature): counted and run as
			// a translation is (hostile 69g).
			return w.translated(o, TranslationCost(c.Body), func() (*http.Request, error) {
				return n.NativeRequest(ctx, e.ep, &provider.NativeRequest{API: c.API, Body: c.Body, Header: c.Header, Stream: w.call.Stream})
			})
		}
		return n.NativeRequest(ctx, e.ep, &provider.NativeRequest{API: c.API, Body: c.Body, Header: c.Header, Stream: w.call.Stream})
	}
	if err := w.translateLate(); err != nil {
		return nil, err
	}
	if w.call.Body == nil && w.call.Native != nil {
		if u := w.call.Native.Untranslated; u != nil {
			return nil, u
		}
		return nil, errNoTranslation
	}
	// A translation into another dialect, and a continuation by prefill,
	// decode the body whole: their cost is taken from the front's
	// allowance while they run, and the body they make while the attempt
	// sends it (cost.go).
	decodes := 0
	if e.prov.cfg.Dialect != classify.OpenAI {
		decodes++
	}
	if w.cont.prefilling() {
		decodes++
	}
	var cost int64
	if decodes > 0 {
		one := TranslationCost(w.call.Body)
		// A prefill's decoding that would take the attempt past what any
		// translation may cost continues by replay instead, which decodes
		// nothing more (review 36d).
		if al := w.call.Allowance; al != nil && w.cont.prefilling() && int64(decodes)*one > al.Cap() {
			w.cont.toReplay()
			decodes--
		}
		cost = int64(decodes) * one
	}
	if cost == 0 {
		// The client's body, spliced: no closure for translated to run
		// off the handler's stack, which would escape on every request.
		return e.prov.adapter.NewRequest(ctx, e.ep, w.requestFor(e))
	}
	return w.translated(o, cost, func() (*http.Request, error) {
		return e.prov.adapter.NewRequest(ctx, e.ep, w.requestFor(e))
	})
}

// translated makes an attempt's request with build within a reservation
// of cost from the front's allowance (none when cost is 0 or the call has
// no allowance), and keeps the body it makes counted while the attempt
// runs (o.held, which upstreamCall gives back).
func (w *walk) translated(o *outcome, cost int64, build func() (*http.Request, error)) (*http.Request, error) {
	if cost > 0 {
		// A translation decodes the body whole, ~0.9 KiB of stack a level
		// of its nesting: off the handler's stack, which a stream keeps at
		// its largest size for its whole life (offstack).
		deep := build
		build = func() (*http.Request, error) { return offstack.Run2(deep) }
	}
	al := w.call.Allowance
	if al == nil || cost == 0 {
		return build()
	}
	if cost > al.Cap() {
		return nil, errTooCostly
	}
	if !al.Hold(cost) {
		return nil, errAllowance
	}
	hreq, err := build()
	if err == nil && hreq.ContentLength > 0 {
		o.held = hreq.ContentLength
	}
	al.Settle(cost, o.held)
	return hreq, err
}

// errAllowance is an attempt not made because its translation does not fit
// in the front's request-body allowance beside the other requests.
var errAllowance = errors.New("translating the request for this provider needs more memory than the gateway may hold for request bodies at once beside the others (max_inflight_body_bytes); retry in a moment")

// errTooCostly is an attempt not made because translating the request for
// its provider would cost more than any one translation may
// (MaxTranslationCost): it never will be, at this provider or another
// that translates; one that takes the client's body may still serve it.
var errTooCostly = errors.New("translating the request for this provider would need more memory than one request may use (128 times max_body_bytes, or max_inflight_body_bytes if larger): a body made mostly of tiny blocks or of list elements that are not objects")

// errNoTranslation is the reason a request without a translation fails
// at a target that needs one, when its door gave none.
var errNoTranslation = errors.New("the request has no translation for this dialect")

// streamOf reads e's event stream: native (raw events) when the attempt
// sent the client's own body.
func (w *walk) streamOf(e *endpointRT, o *outcome, resp *http.Response) provider.Stream {
	if o.native {
		return w.nativeAt(e).NativeStream(w.call.Native.API, resp.Body, e.ep)
	}
	return e.prov.adapter.Stream(resp.Body, e.ep)
}

// nativeAnswer files a 2xx whole answer to a native request. The body goes
// to the client as it came; to a client that asked for a stream, it is
// translated to canonical chunks instead (Commit.Native false), which only
// an adapter that reads the native shape as its dialect can do.
func (w *walk) nativeAnswer(e *endpointRT, body []byte, o *outcome) {
	o.billable = !w.call.advisory() // counting tokens is free
	usage, err := w.nativeAt(e).NativeAnswer(w.call.Native.API, body)
	if err != nil {
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream's answer could not be read: "+err.Error())
		return
	}
	if w.call.Stream && w.call.completions() {
		w.completionAsEvent(e, body, usage, o)
		return
	}
	if w.call.Stream {
		out, err := e.prov.adapter.Response(body, e.ep)
		if err != nil {
			// It ran and billed what it used; asked again, it would answer
			// the same (a server that ignores "stream"): the walk moves on.
			o.usage, o.settled = usage, true
			o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "decode"}, "the upstream answered a stream request with a whole body it could not be relayed as: "+err.Error())
			return
		}
		o.native = false
		w.streamWhole(e, out, o)
		return
	}
	if usage == nil && w.call.Metered && w.call.completions() {
		// No count: a client's limits count the answer's text, as a
		// chat answer's (plain).
		o.delivered = completionsOutputEstimate(body, w.call.sent())
	} else if usage == nil && w.call.Metered && o.billable {
		// No count at any other door's passthrough either (a relay, a
		// Gemini-compatible server without usageMetadata): the answer's
		// output, read as its dialect's answer, or at four bytes a token
		// when it cannot be (hostile 69g: 10 KB of text was charged 0
		// output tokens, the prompt alone).
		o.delivered = w.nativeOutputEstimate(e, body)
	}
	o.ok, o.body, o.usage = true, body, usage
}

// nativeOutputEstimate is the output tokens of body, a whole native
// answer with no usage, for a client's limits: its text as the adapter
// reads the answer in its dialect (answerOutputEstimate: a Gemini or a
// Messages answer), else, where no text is read from it (a Responses
// object), its bytes at four a token.
func (w *walk) nativeOutputEstimate(e *endpointRT, body []byte) int {
	if out, err := e.prov.adapter.Response(body, e.ep); err == nil {
		if n := answerOutputEstimate(out, w.call.sent()); n > 0 {
			return n
		}
	}
	return capOutput(len(body)/4, w.call.sent())
}

// ServesNative reports whether the first target of the route model names
// has an endpoint that serves api natively (see Native): the server asks
// it to decide how to answer count_tokens.
func (d *Dispatcher) ServesNative(model, api string) bool {
	r := d.routes[model]
	return r != nil && len(r.targets) > 0 && r.targets[0].servesNative(api)
}

// NativeOnRoute reports whether any target of the route model names, its
// guarded tail's included, has an endpoint that serves api natively: a
// request only such a target can serve then goes to the route, and the
// targets before it are passed over (evidence "translate"), instead of
// being refused at the door.
func (d *Dispatcher) NativeOnRoute(model, api string) bool {
	r := d.routes[model]
	if r == nil {
		return false
	}
	for _, list := range [2][]*targetRT{r.targets, r.tail} {
		for _, t := range list {
			if t.servesNative(api) {
				return true
			}
		}
	}
	return false
}

func (t *targetRT) servesNative(api string) bool {
	for _, e := range t.endpoints {
		if provider.NativeOf(e.prov.adapter, api) != nil {
			return true
		}
	}
	return false
}

// The client APIs a Call's Native may name (the server's names for
// provider's, so that it needs no provider import).
const (
	APIMessages    = provider.APIMessages
	APICountTokens = provider.APICountTokens
	APIResponses   = provider.APIResponses
	APICompletions = provider.APICompletions
	// The Gemini door's: generateContent and countTokens.
	APIGenerateContent   = provider.APIGenerateContent
	APIGeminiCountTokens = provider.APIGeminiCountTokens
)

// NativeNames returns the names, of those a client may send (Names), whose
// route has a target that serves api natively (NativeOnRoute): what a
// door with no translation (Completions) tells a client whose route has
// none.
func (d *Dispatcher) NativeNames(api string) []string {
	var out []string
	for _, n := range d.names {
		if d.NativeOnRoute(n, api) {
			out = append(out, n)
		}
	}
	return out
}
