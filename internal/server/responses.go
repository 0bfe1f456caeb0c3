package server

import (
	"errors"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/responses"
	"github.com/detour-llm/detour/internal/offstack"
	"github.com/detour-llm/detour/internal/sse"
)

// POST /v1/responses: OpenAI's Responses API, stateless (docs/doors.md,
// "OpenAI Responses"). The body is translated to canonical chat
// (responses.Translate) and served by the same engine as chat; the answer
// is translated back (responses.FromCompletion), or streamed as Responses
// events (responsesOutput). Errors before the commit point, and the
// gateway's own, are the OpenAI envelope with the real status.

func (s *Server) responses(w http.ResponseWriter, r *http.Request) {
	d := openAIDoor("responses", dispatch.OpChat, responsesMembers)
	a := s.admit(w, r, d)
	if a == nil {
		return
	}
	defer s.end(a) // the body is kept for failover until the request ends
	// The call is made ready in a function of its own, whose frame is gone
	// before the call runs: a relayed stream stays parked under this one
	// (TestDoorStreamHandlerStackStays8KiB; docs/benchmarks.md, "Round 6").
	call := &dispatch.Call{Model: a.model, Stream: a.stream, API: "responses",
		Native: &dispatch.Native{API: "responses", Body: a.body}}
	var ready bool
	if a.st.Dispatcher.NativeOnRoute(a.model, "responses") {
		ready = s.responsesNative(w, r, d, a, call)
	} else {
		ready = s.responsesTranslated(w, r, d, a, call)
	}
	if ready {
		s.do(w, r, d, a, call)
	}
}

// responsesTranslated makes call ready for a route none of whose targets
// serves the Responses API as is, or answers the client and returns false.
func (s *Server) responsesTranslated(w http.ResponseWriter, r *http.Request, d door, a *admitted, call *dispatch.Call) bool {
	echo := &responses.Echo{}
	var (
		req *responses.Request
		err error
	)
	if !s.translate(w, d, a, func() int {
		req, err = responses.Translate(a.body)
		if err != nil {
			return 0
		}
		return len(req.Chat)
	}) {
		return false
	}
	if err == nil {
		call.Body, echo, call.CachePrompt = req.Chat, &req.Echo, req.CachePrompt
		call.ClientParam = countedParams(call, a.body, req.Params) // an error names the client's member (input[1], max_output_tokens), not the chat body's
	} else {
		e, ok := err.(*responses.Error)
		if !ok {
			e = &responses.Error{Code: "invalid_value", Message: err.Error()}
		}
		// Every target of the route needs the translation (a route with a
		// target serving Responses as is goes to responsesNative): what
		// it refuses is refused.
		s.frontRefused(d, http.StatusBadRequest, e.Code)
		writeEnvelope(w, http.StatusBadRequest, responses.Envelope("invalid_request_error", e.Code, clientMessage(e.Message), clientMessage(e.Param)))
		return false
	}
	if !s.begin(w, r, d, a, call) {
		return false
	}
	created := time.Now().Unix()
	if call.Stream {
		call.Out = newResponsesOutput(w, call.ID, call.Model, responses.NewStream(echo, a.model, created))
	}
	// A whole answer is translated at its attempt, so one the door cannot
	// express fails over (dispatch.Call.Whole); a responses: true target's
	// answer comes in its own words.
	call.Whole = func(b []byte) ([]byte, error) { return responses.FromCompletion(b, echo, created) }
	return true
}

// responsesNative makes call ready for a Responses request whose route has
// a target that serves the Responses API as is (responses: true): that
// target judges the request itself, so the door refuses only what needs
// stored state (responses.Stateful, a scan of the top level) and leaves the
// translation other targets need to the walk (dispatch.Native.Translate),
// which makes it, and the echo a translated answer repeats, only when it
// reaches one. A request the translation refuses (a hosted or custom tool,
// say) passes over the targets that need it, as "translate", to the one
// that serves it as sent. A request a first such target answers is never
// translated: Codex's 160 KB requests cost the door ~7 ms each
// (docs/benchmarks.md, "Large requests"). It returns false when it
// answered the client itself.
func (s *Server) responsesNative(w http.ResponseWriter, r *http.Request, d door, a *admitted, call *dispatch.Call) bool {
	if e := responses.Stateful(a.body); e != nil {
		s.frontRefused(d, http.StatusBadRequest, e.Code)
		writeEnvelope(w, http.StatusBadRequest, responses.Envelope("invalid_request_error", e.Code, clientMessage(e.Message), clientMessage(e.Param)))
		return false
	}
	if !s.begin(w, r, d, a, call) {
		return false
	}
	created := time.Now().Unix()
	var out *responsesOutput
	if call.Stream {
		out = newResponsesOutput(w, call.ID, call.Model, nil) // its encoder comes with the translation
		call.Out = out
	}
	echo := &responses.Echo{}
	call.Native.Translate = func() ([]byte, error) {
		req, err := responses.Translate(a.body)
		if err != nil {
			return nil, err
		}
		*echo = req.Echo
		call.CachePrompt = req.CachePrompt // before the walk builds a request of the translation (dispatch.Call.request)
		call.ClientParam = countedParams(call, a.body, req.Params)
		if out != nil {
			out.enc = responses.NewStream(echo, a.model, created)
		}
		return req.Chat, nil
	}
	call.Whole = func(b []byte) ([]byte, error) { return responses.FromCompletion(b, echo, created) }
	return true
}

// responsesOutput is the dispatch.Output of a /v1/responses stream: the
// canonical chunks go through a responses.Stream encoder, and its frames
// (`event: <type>` + `data: <json>`) are written as they come and flushed
// in batches (dispatch.Output).
// There is no [DONE]: response.completed (or response.incomplete) ends a
// normal stream, an error event and response.failed one that broke after
// the commit point.
// Like sseOutput, not safe for concurrent use; use newResponsesOutput.
//
// When the committed attempt is a passthrough (Commit.Native, a target
// with responses: true), each chunk is already a Responses event's data:
// it is framed with its own type and written as it came.
type responsesOutput struct {
	sse    *sseOutput // headers, state and timed writes
	enc    *responses.Stream
	native bool
	buf    []byte // a passthrough event's frame, reused
	// next is the sequence_number after the last passthrough event
	// relayed, for the error event that ends a broken one.
	next int
}

func newResponsesOutput(w http.ResponseWriter, id, route string, enc *responses.Stream) *responsesOutput {
	return &responsesOutput{sse: newSSEOutput(w, id, route), enc: enc}
}

// Commit writes the response headers.
func (o *responsesOutput) Commit(c dispatch.Commit) error {
	o.native = c.Native
	return o.sse.Commit(c)
}

// Chunk writes the frames of one canonical chunk. A chunk the encoder
// cannot read changes nothing and is not the client's failure: it is
// skipped.
func (o *responsesOutput) Chunk(chunk []byte) error {
	if err := o.sse.open(); err != nil {
		return err
	}
	if o.native {
		h := readEvent(chunk)
		if h.hasSeq {
			o.next = h.seq + 1
		}
		o.buf = sse.AppendEvent(o.buf[:0], h.name, chunk)
		// The upstream's own last event, by its name or as the relay
		// reads it, waits for release in a metered stream.
		err := o.sse.relay(o.buf, isResponsesEnd(h.name) || o.sse.hold && h.odd && h.relayIs(chunk, responsesEnds...))
		o.buf = keepFrame(o.buf)
		return err
	}
	if o.enc == nil {
		return nil // no translation was made, so no translated chunk can come
	}
	b, err := o.enc.Chunk(chunk)
	if errors.Is(err, responses.ErrTooLarge) {
		return dispatch.ErrTooLarge
	}
	if err != nil || len(b) == 0 {
		return nil
	}
	return o.sse.write(b)
}

// End closes the response with response.completed (or response.incomplete).
func (o *responsesOutput) End() error {
	if err := o.sse.open(); err != nil {
		return err
	}
	if o.native || o.enc == nil { // the upstream's response.completed was the last chunk
		return o.sse.finish(nil)
	}
	return o.sse.finish(o.enc.End())
}

func (o *responsesOutput) holdEnd() { o.sse.holdEnd() }
func (o *responsesOutput) release() { o.sse.release() }

// Flush sends what Chunk wrote.
func (o *responsesOutput) Flush() error { return o.sse.Flush() }

// Fail ends the stream with an error event and response.failed carrying
// the failure's code (the class, or a code such as "shutdown") and message.
func (o *responsesOutput) Fail(f *dispatch.Failure) error {
	if o.sse.state != 1 {
		return errNotCommitted
	}
	if o.native || o.enc == nil {
		// The upstream's own events went out as they came: the encoder
		// saw none, so it writes a lone error event.
		return o.sse.fail(nativeError(f, o.next))
	}
	return o.sse.fail(o.enc.Fail(failureType(f), errorCode(f), openaiMessage(f)))
}

// responsesEnds are the events that end a Responses stream normally.
var responsesEnds = []string{"response.completed", "response.incomplete"}

func isResponsesEnd(name []byte) bool {
	return string(name) == responsesEnds[0] || string(name) == responsesEnds[1]
}

// nativeError is the error event that ends a passthrough stream that broke
// after the commit point: {"type":"error","sequence_number","code",
// "message","param","error":{type, code, message, param}}, numbered seq
// (the one after the last event relayed), as OpenAI's error event is: the
// Vercel AI SDK refuses one without a number (docs/doors.md, "JavaScript
// clients"), and the openai SDKs raise only on the nested error, reading a
// flat event to its end as a finished answer, as the translated stream's
// error event says it (responses.Stream.Fail; probe 66c: a responses: true
// stream cut after its commit was a finished answer to openai-go).
func nativeError(f *dispatch.Failure, seq int) []byte {
	return sse.AppendEvent(nil, errorEvent, responses.ErrorEventData(seq, failureType(f), errorCode(f), openaiMessage(f)))
}

// countedParams is ps.Client for call, whose client sent body: Params
// names the client's member by translating body again, recording, which
// costs what the door's translation did (about 59 times the body for
// one-letter items). That translation is taken from the request-body
// allowance as the door's was (dispatch.Call.Allowance), and run off the
// walk's stack as the door's is; where it does not fit, the error names no
// member rather than wait (hostile 69d: it was counted by nothing, and
// every request an upstream answered with a param allocated it at once).
// Once read, the members cost nothing more.
func countedParams(call *dispatch.Call, body []byte, ps *responses.Params) func(string) string {
	var read atomic.Bool
	return func(p string) string {
		al := call.Allowance
		if p == "" || read.Load() || al == nil {
			return ps.Client(p)
		}
		n := dispatch.TranslationCost(body)
		if !al.Hold(n) {
			return ""
		}
		defer al.Settle(n, 0)
		read.Store(true)
		return offstack.Run(func() string { return ps.Client(p) })
	}
}
