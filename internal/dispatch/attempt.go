package dispatch

import (
	"context"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/policy"
	"github.com/detour-llm/detour/internal/provider"
)

// outcome is what one attempt came to.
type outcome struct {
	ok        bool
	canceled  bool // the client went away
	committed bool // stream bytes reached the client
	finished  bool // the stream said the answer is complete (provider.Event.Finished)
	// wentOn: content came after the stream said it was finished (a
	// server that puts finish_reason on every chunk): its finish proves
	// nothing, and a cut is a cut (streamEnd).
	wentOn bool
	// choices is how many choices the stream had finished when it last
	// said it was finished (provider.Event.Choices; 0 stands for one).
	choices int
	// late is the verdict of an error event that came after the answer
	// was complete (stream.go, erredAfterFinish): the attempt is a
	// success, and the event its evidence.
	late   classify.Verdict
	status int
	// meant is the status an error inside a 2xx stands for (inbandStatus),
	// told to the client in place of status; 0 when none.
	meant   int
	verdict classify.Verdict
	message string
	// code is the failure's own code for the client (Failure.Code), when
	// the attempt was not made for a reason a door named with one.
	code   string
	param  string // the member a translation could not express (Failure.Param)
	upCode string // the upstream's own error code (Failure.UpstreamCode)
	// oaCode and oaParam are an OpenAI-dialect upstream's own error.code
	// and error.param (Failure.UpstreamOpenAICode, UpstreamParam).
	oaCode, oaParam string
	upDetails       []byte // Failure.UpstreamDetails
	// answerBytes is how many bytes the upstream answered (a whole
	// body, a stream's events), which bounds the output it may count
	// (ceiling.go).
	answerBytes int64
	billable    bool
	// unread: a whole answer's attempt of a limited key was sent and ended
	// billable with no answer read (unreadWhole): its output counts at the
	// most its request allowed (unreadOutput, ceiling.go).
	unread bool
	// sentLimit is the output limit a translation wrote into the request
	// where it is not the client's (a Claude target's max_tokens), for an
	// unread answer's ceiling (unreadLimit); 0 otherwise.
	sentLimit int
	// ownLimit: the request's own time limit (the route's deadline,
	// max_stream_duration) ended the attempt. It is nobody's fault: it
	// counts against no endpoint and cools nothing.
	ownLimit bool
	sent     atomic.Bool // the request was written to the upstream
	ttfb     time.Duration
	// began is when the call began; firstToken a stream's time from then
	// to its first content (commit), what its client waits for: a stream's
	// headers and empty first events can come at once from a model that
	// is slow to say anything (operator review 57), so health ranks a
	// stream by it (latency).
	began      time.Time
	firstToken time.Duration
	body       []byte
	usage      *provider.Usage
	malformed  int
	// delivered counts the stream's events with content relayed to the
	// client: a lower bound of the output tokens it was served, which a
	// client limit counts when the upstream never reported its usage.
	delivered int
	native    bool // the client's own body was sent (native.go)
	streamed  bool // the upstream answered a stream (stream.go): ttfb is not its whole generation
	// answers0 and excused0 are the endpoint's counts the attempt's
	// timeout would be excused against when it began (lengthy, counts).
	answers0, excused0 int64
	// upstreamID is the id the upstream gave its answer (upstreamid.go).
	upstreamID string
	// row is the route's table row for the failure's class, looked up
	// once when the attempt is recorded (see finish); every later routing
	// decision about this outcome reads it.
	row policy.Row
	// deferred is how long the endpoint cools for a wait the upstream
	// named (a server error's), applied by coolDeferred (target.go) once the
	// walk knows the request will not wait it out there itself.
	deferred time.Duration
	// tripped: this failure cooled the endpoint by counting (its
	// failure_threshold-th in a row, or a failed probe's): the walk retries
	// there only when it has nowhere else to go (again).
	tripped bool
	// settled: the upstream answered in full, in a way the walk cannot
	// relay (a whole answer to a stream request it cannot stream), and
	// would answer the same, billed again: no retry at this endpoint.
	settled bool
	// sameModel: every endpoint of the target, serving the same model,
	// would answer the same (vectorsTooLarge): the walk skips the target's
	// other endpoints.
	sameModel bool
	// heldBack: the stream ended cut or unfinished while the client, by
	// reading slowly, had held the relay back (watchdog.heldBack): the
	// upstream may have given up on a reader that did not read.
	heldBack bool
	// batches is set on an embeddings attempt sent in several calls, and
	// input then holds the texts of the calls that ran, for a client's
	// limits (embedbatch.go).
	batches *decision.Batches
	input   []byte
	// held is the allowance the attempt's translated body takes while
	// the attempt runs (newRequest); upstreamCall gives it back.
	held int64
}

// latency is the sample health ranks the endpoint by: a stream's time to
// its first content, else the time to the answer's headers (a whole
// answer's whole generation, Report.Whole).
func (o *outcome) latency() time.Duration {
	if o.streamed && o.firstToken > 0 {
		return o.firstToken
	}
	return o.ttfb
}

func (o *outcome) failWith(v classify.Verdict, msg string) {
	o.verdict, o.message = v, visibleControls(msg)
	o.verdict.Failed = true
}

// caller makes one upstream call at endpoint e for walk w and returns its
// outcome. It neither records nor reports the attempt: the walk does, from
// the route's table. Dispatch uses upstreamCall; a test substitutes a fake.
type caller func(ctx context.Context, w *walk, e *endpointRT) *outcome

// attempt makes one call to e and records it.
func (w *walk) attempt(ctx context.Context, e *endpointRT, probe bool) *outcome {
	start := time.Now()
	if n := len(w.rec.Attempts); n > 0 { // the move to this attempt happens now
		// Past an attempt Detour did not send, no upstream failed: a
		// pass-over, in the record alone (review 65k: every
		// /v1/completions request on a mixed route counted a failover).
		if prev := &w.rec.Attempts[n-1]; !decision.Unsent(prev.Evidence) {
			w.d.opt.Metrics.Failover(w.r.name, string(prev.Action), prev.Class)
		}
	}
	w.markTried(e.key)
	if p := w.call.Progress; p != nil {
		p.Attempt(len(w.rec.Attempts)+1, e.key.Target, e.key.Provider, start)
	}
	e.target.inflight.Add(1)
	o := w.d.call(ctx, w, e)
	e.target.inflight.Add(-1)
	w.finish(e, o, probe, time.Since(start))
	return o
}

// upstreamCall is the caller that speaks HTTP to the endpoint's provider.
func upstreamCall(ctx context.Context, w *walk, e *endpointRT) *outcome {
	if o := w.batched(ctx, e); o != nil { // embeddings in several calls (embedbatch.go)
		return o
	}
	start := time.Now()
	// The attempt's outcome, watchdog and trace live as long as each other
	// (a stream's whole life): one allocation for the three.
	st := &struct {
		o     outcome
		wd    watchdog
		trace httptrace.ClientTrace
	}{}
	o, wd, trace := &st.o, &st.wd, &st.trace
	o.began = start
	// The attempt runs under the client's context, not the route's
	// deadline: the watchdog applies the deadline until the commit point.
	actx, cancel, done := w.attemptContext(o)
	defer done()
	served, excused := e.counts(w.call.Stream)
	o.answers0, o.excused0 = served.Load(), excused.Load()
	wd.cancel = cancel
	wd.watchDeadline(ctx)
	defer wd.release()
	trace.WroteRequest = func(i httptrace.WroteRequestInfo) {
		// net/http reports a write that failed too (a reset mid-body):
		// that request never reached the upstream whole, so it never ran.
		if i.Err == nil {
			o.sent.Store(true)
		}
	}
	gctx, turn := e.prov.gate.hook(actx, trace)
	hreq := w.upstreamRequest(httptrace.WithClientTrace(gctx, trace), e, o)
	w.call.keepSent(hreq, e.prov.cfg.Dialect != classify.OpenAI) // the body it sends is evidence (Call.evidence)
	if o.held > 0 {
		defer w.call.Allowance.Release(o.held)
	}
	if hreq == nil {
		return o
	}
	sendOnce(hreq, o)
	wd.arm(PhaseHeaders, e.prov.cfg.Timeout)
	resp, err := turn.do(e.prov.client, hreq)
	if err != nil {
		w.transportFailure(o, err, wd.expired())
		return o
	}
	o.ttfb = time.Since(start)
	if !received(e, resp, o) {
		return o
	}
	if w.call.Stream && resp.StatusCode/100 == 2 && isEventStream(resp.Header) {
		w.stream(e, resp, wd, o)
		return o
	}
	w.plain(e, resp, wd, o)
	return o
}

// upstreamRequest makes the request to e, with the provider's headers; nil
// when the dialect cannot express it (o says why). This and outOfRange are
// functions of their own because a stream is relayed under upstreamCall's
// frame (docs/benchmarks.md, "Round 6").
func (w *walk) upstreamRequest(ctx context.Context, e *endpointRT, o *outcome) *http.Request {
	hreq, err := w.newRequest(ctx, e, o)
	return withHeaders(e, hreq, err, o)
}

// withHeaders is the request hreq made for e, with the provider's headers,
// or nil when its dialect could not express it (err; o says why).
func withHeaders(e *endpointRT, hreq *http.Request, err error, o *outcome) *http.Request {
	if errors.Is(err, errAllowance) {
		// The gateway's own memory, not the request or the provider: an
		// unknown that moves on and cools nothing, answered 503.
		o.status = http.StatusServiceUnavailable
		o.failWith(classify.Verdict{Class: classify.Unknown, Evidence: decision.EvidenceAllowance}, "Detour did not call "+e.key.Provider+": "+err.Error())
		return nil
	}
	if errors.Is(err, errTooCostly) {
		// The request's shape, never this provider's fault: unknown moves
		// on and cools nothing, answered 413 (no retry makes it fit).
		o.status = http.StatusRequestEntityTooLarge
		o.failWith(classify.Verdict{Class: classify.Unknown, Evidence: decision.EvidenceTooCostly}, "Detour did not call "+e.key.Provider+": "+err.Error())
		return nil
	}
	if err != nil {
		o.status = http.StatusBadRequest
		// This dialect cannot express the request (an audio or file part for
		// Anthropic, say); another target may take it as is. unknown moves
		// on and cools nothing; the upstream that is asked judges the input.
		o.failWith(classify.Verdict{Class: classify.Unknown, Evidence: decision.EvidenceUntranslated}, "Detour could not translate the request for "+e.key.Provider+": "+err.Error())
		var coded interface{ ErrorCode() string }
		if errors.As(err, &coded) {
			o.code = coded.ErrorCode()
		}
		// One member the dialect cannot express (provider.Unsupported):
		// named as OpenAI names a member it does not take (probe 67c: the
		// client's SDK error said code unknown, param null).
		var member interface{ ErrorParam() string }
		if errors.As(err, &member) && o.code == "" {
			o.code, o.param = "unsupported_parameter", member.ErrorParam()
		}
		return nil
	}
	// No compressed answer: the 64 MiB an answer may take is counted as
	// read, and a few KiB of gzip would otherwise become that much
	// (hostile review 51b: a 49 KB answer cost 395 MiB of heap). Set
	// before the provider's headers, which may ask otherwise.
	hreq.Header.Set("Accept-Encoding", "identity")
	for k, v := range e.prov.cfg.Headers {
		hreq.Header.Set(k, v)
	}
	return hreq
}

// received files the answer resp to o (its status; the protocol it came
// in, for the provider's gate) and reports whether it is one: a status no
// HTTP server may send (net/http passes any three digits through) is a
// broken upstream, never a status for the client.
func received(e *endpointRT, resp *http.Response, o *outcome) bool {
	e.prov.gate.saw(resp.ProtoMajor)
	o.status = resp.StatusCode
	o.upstreamID = upstreamRequestID(resp.Header)
	if resp.StatusCode < 100 || resp.StatusCode > 599 {
		resp.Body.Close()
		o.outOfRange(resp.StatusCode)
		return false
	}
	if resp.StatusCode == http.StatusSwitchingProtocols {
		// No request of Detour's asks to switch protocols, and net/http
		// hands the raw connection over as the body of a 101, whose reads
		// no timeout or cancellation can end: closed unread (closing it
		// closes the connection).
		resp.Body.Close()
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "status:101"},
			"the upstream switched protocols (HTTP 101), which no request asked for")
		return false
	}
	decodeBody(resp)
	return true
}

// outOfRange fails an attempt whose answer's status no HTTP server sends.
func (o *outcome) outOfRange(status int) {
	o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "status:out-of-range"},
		fmt.Sprintf("the upstream answered with HTTP status %d, outside 100-599", status))
}

func isEventStream(h http.Header) bool {
	mt, _, _ := mime.ParseMediaType(h.Get("Content-Type"))
	return mt == "text/event-stream"
}

// transportFailure files an attempt that ended without a usable answer.
func (w *walk) transportFailure(o *outcome, err error, expired Phase) {
	switch {
	case errors.Is(w.base.Err(), context.Canceled):
		w.gone(o)
		o.billable = o.sent.Load()
		if expired != "" {
			// The client left a limited key's whole answer, which was read
			// on (attemptContext) until a timeout ended it: as unread as
			// one whose client stayed (review 67i: counted at its input,
			// a key that closed each request after sending escaped the
			// ceiling).
			w.unreadWhole(o)
		}
	case expired != "":
		o.expired(expired, "the upstream did not answer within its "+string(expired)+" timeout")
		o.billable = o.sent.Load()
	case errors.Is(err, errCodingRatio):
		answerTooLarge(o, err.Error())
	case strings.Contains(err.Error(), "response headers exceeded"): // net/http's words; it has no typed error
		o.failWith(classify.Verdict{Class: classify.ServerError, Evidence: "headers:too-large"},
			fmt.Sprintf("the upstream's response headers exceed %d bytes", maxResponseHeader))
		o.billable = o.sent.Load()
	default:
		v := classify.Transport(err)
		o.failWith(v, "upstream connection failed: "+err.Error())
		// A connection lost after the request was written may have run it.
		o.billable = o.sent.Load()
	}
	if o.verdict.Class == classify.Timeout {
		// Not a lost connection's: an upstream that reset it most likely
		// failed, and one flaky provider would spend every tenant's budget
		// at its ceiling (unreadWhole).
		w.unreadWhole(o)
	}
}

// gone files an attempt ended by the client leaving, or by the end of the
// shutdown grace period: not the upstream's doing, nothing to classify.
func (w *walk) gone(o *outcome) {
	o.canceled = true
	o.verdict = classify.Verdict{Evidence: "client canceled"}
	if w.shuttingDown() {
		o.verdict.Evidence = "shutdown"
	}
}

// expired files a timeout of phase; msg describes an upstream timeout. The
// request's own limits say so instead, and count against nobody.
func (o *outcome) expired(phase Phase, msg string) {
	switch phase {
	case PhaseDeadline:
		msg, o.ownLimit = "the route's deadline passed before the answer began", true
	case PhaseMaxStreamDuration:
		msg, o.ownLimit = "the stream reached the route's max_stream_duration", true
	}
	o.failWith(classify.Verdict{Class: classify.Timeout, Evidence: "timeout:" + string(phase)}, msg)
}

// classify classifies r against what the client chose (Call.evidence): an
// error answer against its body, forwarded header values and the body
// Detour sent the upstream for it (its translation), a 2xx against the
// body alone — but a 2xx that fails after all (an error object in a 200, a
// relay's) is read again against the rest too, as the same answer sent as
// a 400 is: a client's anthropic-beta value quoted back must not be
// evidence (review 32a), nor Detour's translation of its words (hostile
// 58).
func (w *walk) classify(r classify.Response, errorAnswer bool) classify.Verdict {
	r.Request = w.call.evidence(errorAnswer)
	v := w.d.cls.Classify(r)
	if v.Failed && !errorAnswer && (w.call.echoHeaders() || w.call.upstream != nil) {
		r.Request = w.call.evidence(true)
		v = w.d.cls.Classify(r)
	}
	return v
}

// secretSlack is how far past the classifier's read an error answer is
// read, so that a secret the upstream wrote across the point where its
// message is cut is seen whole (messageOf): the longest keys (Bedrock's
// short-term keys, a presigned URL's ~1.5 KB) fit.
const secretSlack = 4096

// messageOf is the message of an upstream's error answer or event body
// (classify.AnswerMessage where answer is set, classify.Message
// otherwise), read from its first classify.MaxBody bytes, cut never
// through a secret the body holds whole (Options.CutForClient): a cut
// through a key the upstream echoed left a fragment short of the length
// the client's scrubbing hides (under 32 bytes, not the key's end), at a
// point the client chose by padding its own text (review 63f: 31 bytes of
// a 32-byte key read). Scrubbing the whole body before the cut instead
// cost up to a scrub of 64 MiB, and shortened the text by the client's
// own key-shaped strings, pulling a later fragment in (review 63j).
func (w *walk) messageOf(body []byte, answer bool) string {
	if len(body) > classify.MaxBody {
		body = w.d.opt.CutForClient(body, classify.MaxBody)
	}
	if answer {
		return classify.AnswerMessage(body)
	}
	return classify.Message(body)
}
