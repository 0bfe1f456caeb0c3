package server

import (
	"errors"
	"net/http"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/messages"
)

// The Anthropic Messages door (docs/doors.md, "Anthropic Messages"):
// POST /v1/messages, POST /v1/messages/count_tokens, and GET /v1/models in
// Anthropic's shape (models.go's modelsFor). Every error on it is in
// Anthropic's envelope with Anthropic's statuses.

// messagesMembers are the top-level members the Messages door reads, by
// case-folded name: a name differing from one only by case is refused, as
// on the chat door (strict.go).
var messagesMembers = foldMap("model", "messages", "max_tokens", "system", "metadata", "stop_sequences", "stream",
	"temperature", "top_p", "top_k", "tools", "tool_choice", "thinking", "service_tier", "container",
	"mcp_servers", "context_management", "output_format", "output_config")

func foldMap(names ...string) map[string]string {
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[string(appendFold(nil, []byte(n)))] = n
	}
	return m
}

func (s *Server) messagesDoor() {
	s.mux.HandleFunc("/v1/messages", s.messages)
	s.mux.HandleFunc("/v1/messages/count_tokens", s.countTokens)
}

// anthropicError writes the gateway's own error in Anthropic's envelope,
// typed by its status.
func anthropicError(w http.ResponseWriter, status int, msg string) {
	writeEnvelope(w, status, messages.Envelope(messages.TypeForStatus(status), clientMessage(msg)))
}

// anthropicClient finds the client key r presents as Anthropic's SDKs
// send it (x-api-key) or as a Bearer token (ANTHROPIC_AUTH_TOKEN).
func anthropicClient(cfg *config.Config, r *http.Request) (*config.ClientKey, bool) {
	if k := r.Header.Get("X-Api-Key"); k != "" {
		return clientByKey(cfg, k, true)
	}
	got, ok := bearer(r)
	return clientByKey(cfg, got, ok)
}

// messagesFront is the front of the Messages door: x-api-key or Bearer
// keys, its own strict members, Anthropic's envelope.
var messagesFront = door{name: "messages", op: dispatch.OpChat, members: messagesMembers, client: anthropicClient, apiKeyFirst: true,
	keyHint: "send x-api-key: <key> or Authorization: Bearer <key>",
	fail:    func(w http.ResponseWriter, status int, _, msg string) { anthropicError(w, status, msg) },
	failure: func(f *dispatch.Failure) []byte {
		return messages.ClassEnvelopeDetails(f.Class, f.Status, clientMessage(f.Message), messagesCode(f), messagesDetails(f))
	}}

// messagesCode is the error.details.error_code a failure tells a
// Messages client: Detour's own code, else the upstream's (an Anthropic
// target's, dispatch.Failure.UpstreamCode) where the failure is the
// request's own (a lost thread, a compaction block, a refusal). Not of a
// refused key, a spent account or a disabled encryption key: those are the
// gateway's own credential and account, which the message says first, and
// the code would have the SDK raise them as the client's (review 62h).
func messagesCode(f *dispatch.Failure) string {
	if f.Code != "" {
		return f.Code
	}
	if c := f.Class; c == classify.BadRequest || c == classify.ContextLength || c == classify.Refusal || c == classify.Overflow {
		return f.UpstreamCode
	}
	return ""
}

// messagesDetails is the rest of an Anthropic target's error.details
// (dispatch.Failure.UpstreamDetails) where its code is the one told
// (messagesCode): probe 67c, image_dimensions_too_large's
// max_side_length_pixels and paths, by which the client scales the image.
func messagesDetails(f *dispatch.Failure) []byte {
	if f.Code == "" && f.UpstreamCode != "" && messagesCode(f) == f.UpstreamCode {
		return f.UpstreamDetails
	}
	return nil
}

// countTokensFront is the Messages front of count_tokens, whose estimate
// is never refused (docs/doors.md).
var countTokensFront = func() door { d := messagesFront; d.name, d.advisory = "count_tokens", true; return d }()

// countTokensExact is the front of an exact count, an upstream call: it
// takes one of the key's own slots, as a Messages request does (refused),
// and counts its refusals as count_tokens'.
var countTokensExact = func() door { d := messagesFront; d.name = "count_tokens"; return d }()

// native is the client's request for a target that serves the Messages
// API as is (api: messages or count_tokens), with the client headers it
// forwards (dispatch.NativeHeader).
func native(r *http.Request, api string, body []byte) *dispatch.Native {
	return &dispatch.Native{API: api, Body: body, Header: dispatch.NativeHeader(r.Header)}
}

func (s *Server) messages(w http.ResponseWriter, r *http.Request) {
	in := s.admit(w, r, messagesFront)
	if in == nil {
		return
	}
	defer s.end(in) // the body is kept for failover until the request ends
	// The call is made ready in a function of its own, whose frame is gone
	// before the call runs: a relayed stream stays parked under this one
	// (TestDoorStreamHandlerStackStays8KiB; docs/benchmarks.md, "Round 6").
	var call *dispatch.Call
	if in.st.Dispatcher.ServesNative(in.model, dispatch.APIMessages) {
		call = s.messagesNativeFirst(w, r, in)
	} else {
		call = s.messagesTranslated(w, r, in)
	}
	if call != nil {
		// A whole answer is translated at its attempt, so one the door
		// cannot express fails over (dispatch.Call.Whole); an Anthropic
		// target's answer comes in its own words.
		call.Whole = func(b []byte) ([]byte, error) { return messages.Answer(b, call.Model) }
		s.do(w, r, messagesFront, in, call)
	}
}

// messagesTranslated makes ready a Messages request whose route begins
// with a target that needs it translated, or answers it and returns nil.
func (s *Server) messagesTranslated(w http.ResponseWriter, r *http.Request, in *admitted) *dispatch.Call {
	var (
		tr      messages.Translated
		err, ce error
		nat     []byte
	)
	if !s.translate(w, messagesFront, in, func() int {
		nat = messages.DropUnsigned(in.body)
		tr, err = messages.Translate(in.body)
		// What only an Anthropic target can serve still goes to the route:
		// its Anthropic targets get the body as sent, the others fail as
		// "translate" and are passed over. Any other request the door
		// finds malformed is refused (a route that begins with an
		// Anthropic target is served by messagesNativeFirst); but a body
		// that is not a Messages request at all (messages.Check, a decode
		// of its own, counted here too) is refused whatever the route,
		// before any upstream call.
		var de *messages.Error
		if errors.As(err, &de) && de.Unsupported {
			if e := messages.Check(in.body); e != nil { // a *messages.Error: nil must stay a nil error
				ce = e
			}
		} else if err != nil {
			ce = err
		}
		return len(tr.Body) + copied(nat, in.body)
	}) {
		return nil
	}
	call := &dispatch.Call{Model: in.model, Stream: in.stream, API: "messages", Native: native(r, dispatch.APIMessages, nat)}
	if err != nil {
		if ce != nil {
			s.refuse(w, messagesFront, http.StatusBadRequest, "invalid_request", ce.Error())
			return nil
		}
		call.Native.Untranslated = err
	} else {
		call.Body = tr.Body
	}
	if !s.begin(w, r, messagesFront, in, call) {
		return nil
	}
	if call.Stream {
		out := newMessagesOutput(w, call.ID, call.Model)
		out.inputTokens = tr.InputTokens // estimated by the same decode as the translation
		call.Out = out
	}
	return call
}

// messagesNativeFirst makes ready a Messages request whose route begins with a
// target that serves the Messages API as is: that target judges the
// request's details itself, so the door refuses only a body that is not a
// Messages request at all (messages.CheckScanned, a scan of a body the
// front already checked), and leaves the translation other targets need to
// the walk (dispatch.Native.Translate): a request the first target answers
// is never translated. Translating a coding agent's 160 KB request cost
// ~7 ms of CPU (docs/benchmarks.md, "Large requests"). It returns nil when
// it answered the client itself.
func (s *Server) messagesNativeFirst(w http.ResponseWriter, r *http.Request, in *admitted) *dispatch.Call {
	nat := in.body
	if messages.MayHoldUnsigned(in.body) && !s.translate(w, messagesFront, in, func() int {
		nat = messages.DropUnsigned(in.body)
		return copied(nat, in.body)
	}) {
		return nil
	}
	if e := messages.CheckScanned(in.body); e != nil {
		s.refuse(w, messagesFront, http.StatusBadRequest, "invalid_request", e.Error())
		return nil
	}
	call := &dispatch.Call{Model: in.model, Stream: in.stream, API: "messages", Native: native(r, dispatch.APIMessages, nat)}
	if !s.begin(w, r, messagesFront, in, call) {
		return nil
	}
	var out *messagesOutput
	if call.Stream {
		out = newMessagesOutput(w, call.ID, call.Model)
		call.Out = out
	}
	call.Native.Translate = func() ([]byte, error) {
		tr, err := messages.Translate(in.body)
		if out != nil {
			out.inputTokens = tr.InputTokens // for a translated stream's message_start
		}
		return tr.Body, err
	}
	return call
}

// countTokens answers POST /v1/messages/count_tokens: exactly, from the
// route's first target's own count_tokens endpoint when that target is
// Anthropic (one attempt, no failover: a count is advisory); otherwise,
// or when that count fails, with messages.Estimate; but a count Anthropic
// refuses as the request's fault (bad_request) is that refusal. Only an
// upstream's answer carries X-Detour-* headers.
func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	in := s.admit(w, r, countTokensFront)
	if in == nil {
		return
	}
	defer s.end(in)
	st := in.st
	if st.Dispatcher.ServesNative(in.model, dispatch.APICountTokens) {
		if s.refused(w, r, countTokensExact, in) {
			return
		}
		var nat []byte
		if !s.translate(w, countTokensFront, in, func() int { nat = messages.DropUnsigned(in.body); return copied(nat, in.body) }) {
			return
		}
		call := &dispatch.Call{Model: in.model, API: "messages", Native: native(r, dispatch.APICountTokens, nat)}
		call.Native.Untranslated = errors.New("count_tokens is counted by Anthropic targets only")
		if s.exactCount(w, r, countTokensExact, in, call) {
			return
		}
	}
	var (
		n   int
		err error
	)
	if !s.translate(w, countTokensFront, in, func() int {
		if ce := messages.CheckCountScanned(in.body); ce != nil { // a *messages.Error: nil must stay a nil error
			err = ce
			return 0
		}
		n, err = messages.Estimate(in.body)
		return 0
	}) {
		return
	}
	if err != nil {
		s.refuse(w, countTokensFront, http.StatusBadRequest, "invalid_request", err.Error())
		return
	}
	requestID(w.Header())
	w.Header().Set("Content-Type", "application/json")
	w.Write(messages.CountTokensBody(n))
}

// copied is len(b) when b is a copy of body (DropUnsigned dropped
// something), else 0: the bytes a request holds beside its body.
func copied(b, body []byte) int {
	if len(b) > 0 && len(body) > 0 && &b[0] != &body[0] {
		return len(b)
	}
	return 0
}
