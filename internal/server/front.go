package server

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/inprogress"
)

// The front every door shares (docs/behaviour.md#api): method, client key,
// Content-Type, body limits, the strict JSON pass, a known model the
// client key may call and that serves the door's operation, and the
// "stream" flag, in that order, with the same statuses on every door. A
// door differs only in how it reads the client's key, which members its
// strict pass reads, and the envelope its errors take.

// door describes one client API to the front.
type door struct {
	// name is the door's label in detour_front_refusals_total (chat,
	// responses, messages, count_tokens, embeddings).
	name string
	op   dispatch.Op
	// members are the top-level members the door reads, case-folded
	// (foldMap); nil means Chat Completions' (strict.go).
	members map[string]string
	// client finds the client key the request presents.
	client func(*config.Config, *http.Request) (*config.ClientKey, bool)
	// apiKeyFirst: client reads x-api-key before the Bearer token
	// (anthropicClient), and keyIndex names the key the same way.
	apiKeyFirst bool
	// key, when set, is the key r presents as client reads it, for the
	// record's key index (a door that reads keys where no other does: the
	// Gemini door's x-goog-api-key and ?key=).
	key func(r *http.Request) string
	// target, when set, reads the model and the stream flag from r's path
	// (the Gemini door: /v1beta/models/{model}:streamGenerateContent), not
	// from the body's "model" and "stream".
	target func(r *http.Request) (model string, stream bool)
	// keyHint says how to send a key, for the 401.
	keyHint string
	// fail writes one of the gateway's own errors in the door's envelope:
	// code is OpenAI's "code" (a door that has none ignores it).
	fail func(w http.ResponseWriter, status int, code, msg string)
	// failure is the envelope of a request no attempt answered (f), in
	// the door's shape.
	failure func(f *dispatch.Failure) []byte
	// advisory: the door's answer may be Detour's own estimate
	// (count_tokens), which the key's requests in progress never refuse:
	// its max_concurrent slot before its body is one of a pool of its own
	// (takeSlot); an upstream call also takes one of the key's (refused).
	advisory bool
}

// admitted is a request that passed the front: its state, client key,
// body, and the model it named.
type admitted struct {
	st     *State
	client *config.ClientKey
	body   []byte
	model  string
	stream bool
	held   int64
	over   int64  // the overdraft its translation holds now (translate.go), apart from held
	head   head   // what the front's one pass over the body found
	slot   string // the client whose max_concurrent slot the request holds, if any
	aside  string // the count_tokens slot it holds (countSlot), if any
	srv    *Server
	// progress is the request as the console lists it while it runs
	// (Server.inProgress): kept here, not allocated apart.
	progress inprogress.Request
}

// admit runs the front for d. On failure it has answered the client and
// returns nil; otherwise the caller must give back what the request holds
// (s.end) when it ends.
func (s *Server) admit(w http.ResponseWriter, r *http.Request, d door) *admitted {
	st := s.state.Load()
	if r.Method != http.MethodPost {
		closeAfter(w)
		if r.Method == http.MethodGet && webSocket(r) {
			// Codex's built-in OpenAI provider opens /v1/responses as a
			// WebSocket first: a 405 made it retry for ~7 s, a 426 makes
			// it fall back to HTTP at once (probe 55a; docs/doors.md).
			s.refuse(w, d, http.StatusUpgradeRequired, "websocket_not_supported",
				"Detour serves "+r.URL.Path+" over HTTP (POST), not as a WebSocket")
			return nil
		}
		w.Header().Set("Allow", http.MethodPost)
		s.refuse(w, d, http.StatusMethodNotAllowed, "method_not_allowed", "use POST for "+r.URL.Path)
		return nil
	}
	client, ok := d.client(st.Config, r)
	if !ok {
		closeAfter(w)
		s.refuse(w, d, http.StatusUnauthorized, "invalid_api_key", "missing or invalid client key: "+d.keyHint)
		return nil
	}
	if client != nil && client.Disabled {
		closeAfter(w) // its body is not read
		s.refuseDisabled(w, d, client)
		return nil
	}
	if ce := r.Header.Get("Content-Encoding"); ce != "" && !strings.EqualFold(ce, "identity") {
		s.refuse(w, d, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"the body must not be encoded: Detour reads Content-Encoding: identity only, not "+quoteHeader(ce))
		return nil
	}
	if ct := r.Header.Get("Content-Type"); !jsonContentType(ct) {
		s.refuse(w, d, http.StatusUnsupportedMediaType, "unsupported_media_type",
			"the body must be JSON sent with Content-Type: application/json, not "+quoteHeader(ct))
		return nil
	}
	if n := dispatch.NativeHeaderBytes(r.Header); n > maxForwarded {
		s.refuse(w, d, http.StatusBadRequest, "header_too_large", fmt.Sprintf(
			"anthropic-beta and anthropic-version hold %d bytes, more than the %d Detour forwards: send the betas the request uses", n, maxForwarded))
		return nil
	}
	// The key's max_concurrent slot is taken before its body is read: a key
	// stalling uploads holds at most its slots' share of the in-flight body
	// allowance, never all of it (review 30f). A key its rate or budget has
	// cut off (refused earlier in the same window) holds none (review 37a).
	// count_tokens too, whose estimate a key's requests in progress never
	// refuse: its slots are a pool of their own (review 40a: a key with
	// max_concurrent: 1, or one cut off, stalled count_tokens uploads and
	// held the whole allowance).
	if ref := st.Limits.Refused(client); ref != nil {
		closeAfter(w) // its body is not read
		s.refuseLimited(w, d, client, ref)
		return nil
	}
	slot, ok := s.takeSlot(w, d, client)
	if !ok {
		return nil
	}
	body, held, fail := s.readBody(r, st.Config)
	if fail != nil {
		s.bodies.give(held)
		s.giveSlot(slot)
		code := "invalid_request"
		switch fail.status {
		case http.StatusServiceUnavailable:
			w.Header().Set("Retry-After", retryAfter)
			code = "inflight_body_limit"
		case http.StatusRequestEntityTooLarge:
			code = "request_too_large"
		case http.StatusRequestTimeout:
			code = "request_timeout"
			closeAfter(w) // the connection's read deadline has passed
		}
		s.refuse(w, d, fail.status, code, fail.msg)
		return nil
	}
	refuse := func(status int, code, msg string) *admitted {
		s.bodies.give(held)
		s.giveSlot(slot)
		s.refuse(w, d, status, code, msg)
		return nil
	}
	// A reload while the body was on its way may have disabled or removed
	// the key: the body read, the request is asked again under the file
	// served now (review 61g: a leaked key's uploads opened before the
	// reload that disabled it were served after it, up to the read
	// timeout later). It still runs on the configuration it was admitted
	// under.
	if cur := s.state.Load(); cur != st && client != nil {
		switch now, ok := d.client(cur.Config, r); {
		case !ok:
			closeAfter(w)
			return refuse(http.StatusUnauthorized, "invalid_api_key", "missing or invalid client key: "+d.keyHint)
		case now != nil && now.Disabled:
			closeAfter(w)
			s.bodies.give(held)
			s.giveSlot(slot)
			s.refuseDisabled(w, d, now)
			return nil
		}
	}
	members := d.members
	if members == nil {
		members = foldedMembers
	}
	hd, err := scanFor(body, members)
	if err != nil {
		return refuse(http.StatusBadRequest, "invalid_request", err.Error())
	}
	model, ok := jsonString(hd.model)
	var pathStream bool
	if d.target != nil {
		model, pathStream = d.target(r)
		ok = true
	}
	if !ok || model == "" {
		return refuse(http.StatusBadRequest, "invalid_request", `"model" must be a non-empty string naming a route or target`)
	}
	allowed := st.Config.Allowed(client)
	if !st.Dispatcher.Known(model) || allowed != nil && !allowed[model] {
		return refuse(http.StatusNotFound, "model_not_found",
			fmt.Sprintf("unknown model %q; known: %s", cut(model, maxModelQuote), strings.Join(visible(st.Dispatcher.Names(), allowed), ", ")))
	}
	if !st.Dispatcher.Serves(model, d.op) {
		return refuse(http.StatusBadRequest, "invalid_request",
			fmt.Sprintf("no target of %q serves %s: its providers' dialects have no such API", model, r.URL.Path))
	}
	a := &admitted{st: st, client: client, body: body, held: held, model: model, head: hd, slot: slot, srv: s}
	if d.advisory { // a count_tokens slot: an exact count still takes the key's own (refused)
		a.slot, a.aside = "", slot
	}
	if d.target != nil {
		a.stream = pathStream
		return a
	}
	switch string(hd.stream) {
	case "", "null", "false":
	case "true":
		a.stream = true
	default:
		return refuse(http.StatusBadRequest, "invalid_request", `"stream" must be a boolean`)
	}
	return a
}

// maxModelQuote is as much of an unknown model's name as its 404 quotes:
// the name is the client's, up to a whole body long.
const maxModelQuote = 256

// openAIDoor is the front of the OpenAI-shaped doors (chat, responses,
// embeddings): Bearer keys, the OpenAI envelope; name and members as in
// door.
func openAIDoor(name string, op dispatch.Op, members map[string]string) door {
	return door{name: name, op: op, members: members, client: clientOf, keyHint: "send Authorization: Bearer <key>", fail: openAIFail,
		failure: failureEnvelope}
}

// refuse answers a request the gateway refuses itself, before routing it,
// in d's envelope: status, code and msg as d.fail takes them, and a request
// id (requestID), which the debug line names. It is counted
// (detour_front_refusals_total, by door and code) and logged at debug, so a
// client failing every request at the front (a retired key, a model name
// the file does not know) shows on the operator's dashboards, though it
// leaves no decision record (operator review 48). msg is not logged: it
// may quote the client.
// attrs are logged with it (a client key's name and limit: never the
// key).
func (s *Server) refuse(w http.ResponseWriter, d door, status int, code, msg string, attrs ...any) {
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		attrs = append(attrs, "request_id", requestID(w.Header())) // the id the client's error shows
	}
	s.frontRefused(d, status, code, attrs...)
	d.fail(w, status, code, msg)
}

// frontRefused counts and logs a refusal the caller answers itself (refuse).
func (s *Server) frontRefused(d door, status int, code string, attrs ...any) {
	s.metrics.FrontRefused(d.name, code)
	if s.log.Enabled(context.Background(), slog.LevelDebug) {
		s.log.Debug("request refused at the front", append([]any{"door", d.name, "status", status, "code", code}, attrs...)...)
	}
}

// The top-level members the Responses and Embeddings doors read (their
// translations and passthroughs): a name differing from one only by case is
// refused, as on the chat door.
var (
	responsesMembers = foldMap("model", "stream", "input", "instructions", "tools", "tool_choice",
		"parallel_tool_calls", "max_output_tokens", "temperature", "top_p", "reasoning", "text", "store",
		"previous_response_id", "conversation", "background", "prompt", "metadata", "user", "include",
		"prompt_cache_key", "truncation", "service_tier")
	embeddingsMembers = foldMap("model", "stream", "input", "dimensions", "encoding_format", "user")
)

// openAIFail writes the gateway's own error in the OpenAI envelope, its
// "type" following the status.
func openAIFail(w http.ResponseWriter, status int, code, msg string) {
	kind := "invalid_request_error"
	switch status {
	case http.StatusUnauthorized:
		kind = "authentication_error"
	case http.StatusForbidden:
		kind = "permission_error"
	case http.StatusTooManyRequests:
		kind = "rate_limit_error"
	case http.StatusBadGateway, http.StatusServiceUnavailable:
		kind = "server_error"
	}
	writeError(w, status, kind, code, msg)
}

// webSocket reports whether r asks to become a WebSocket (an Upgrade
// header naming websocket among its protocols).
func webSocket(r *http.Request) bool {
	for _, v := range r.Header.Values("Upgrade") {
		for p := range strings.SplitSeq(v, ",") {
			name, _, _ := strings.Cut(strings.TrimSpace(p), "/")
			if strings.EqualFold(name, "websocket") {
				return true
			}
		}
	}
	return false
}

// maxForwarded bounds the client headers an Anthropic upstream gets as
// sent (anthropic-beta, anthropic-version: dispatch.NativeHeader), each
// line counted whole (dispatch.NativeHeaderBytes).
// Anthropic's betas are a few dozen names of some 30 bytes; 40 KiB of
// them made an upstream that drops oversized headers fail, and its
// server_error cooled the endpoint for everyone (review 63p).
const maxForwarded = 4096
