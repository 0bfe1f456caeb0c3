package server

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/dispatch"
)

// The front of the OpenAI-shaped doors besides chat (/v1/responses,
// /v1/embeddings): the same checks as /v1/chat/completions, in the same
// order, with the same statuses and the OpenAI envelope (docs/doors.md).

// admitted is a request that passed the front: its state, client key,
// body, and the model it named.
type admitted struct {
	st     *State
	client *config.ClientKey
	body   []byte
	model  string
	stream bool
	held   int64
}

// openAIFront runs the checks every OpenAI-shaped door shares: method,
// client key, Content-Type, body limits, strict JSON, a known model the
// client key may call and that serves op. On failure it has answered the
// client and returns nil; otherwise the caller must give back a.held
// (s.bodies.give) when the request ends.
func (s *Server) openAIFront(w http.ResponseWriter, r *http.Request, path string, op dispatch.Op) *admitted {
	st := s.state.Load()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST for "+path)
		return nil
	}
	client, ok := clientOf(st.Config, r)
	if !ok {
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid_api_key", "missing or invalid client key: send Authorization: Bearer <key>")
		return nil
	}
	if ct := r.Header.Get("Content-Type"); !jsonContentType(ct) {
		writeError(w, http.StatusUnsupportedMediaType, "invalid_request_error", "unsupported_media_type",
			"the body must be JSON sent with Content-Type: application/json, not "+quoteHeader(ct))
		return nil
	}
	body, held, fail := s.readBody(r, st.Config)
	if fail != nil {
		s.bodies.give(held)
		switch fail.status {
		case http.StatusServiceUnavailable:
			w.Header().Set("Retry-After", retryAfter)
			writeError(w, fail.status, "server_error", "inflight_body_limit", fail.msg)
		case http.StatusRequestEntityTooLarge:
			writeError(w, fail.status, "invalid_request_error", "request_too_large", fail.msg)
		default:
			writeError(w, fail.status, "invalid_request_error", "invalid_request", fail.msg)
		}
		return nil
	}
	a := &admitted{st: st, client: client, body: body, held: held}
	refuse := func(status int, code, msg string) *admitted {
		s.bodies.give(held)
		writeError(w, status, "invalid_request_error", code, msg)
		return nil
	}
	hd, err := scan(body)
	if err != nil {
		return refuse(http.StatusBadRequest, "invalid_request", err.Error())
	}
	model, ok := jsonString(hd.model)
	if !ok || model == "" {
		return refuse(http.StatusBadRequest, "invalid_request", `"model" must be a non-empty string naming a route or target`)
	}
	allowed := st.Config.Allowed(client)
	if !st.Dispatcher.Known(model) || allowed != nil && !allowed[model] {
		return refuse(http.StatusNotFound, "model_not_found",
			fmt.Sprintf("unknown model %q; known: %s", model, strings.Join(visible(st.Dispatcher.Names(), allowed), ", ")))
	}
	if !st.Dispatcher.Serves(model, op) {
		return refuse(http.StatusBadRequest, "invalid_request",
			fmt.Sprintf("no target of %q serves %s: its providers' dialects have no such API", model, path))
	}
	switch string(hd.stream) {
	case "", "null", "false":
	case "true":
		a.stream = true
	default:
		return refuse(http.StatusBadRequest, "invalid_request", `"stream" must be a boolean`)
	}
	a.model = model
	return a
}

// attemptHeaders applies X-Detour-Max-Attempts and
// X-Detour-Max-Billable-Attempts to call; it returns a message for the
// client when one is malformed.
func attemptHeaders(r *http.Request, call *dispatch.Call) string {
	for _, h := range []struct {
		name string
		dst  *int
	}{{"X-Detour-Max-Attempts", &call.MaxAttempts}, {"X-Detour-Max-Billable-Attempts", &call.MaxBillable}} {
		if v := r.Header.Get(h.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return h.name + " must be a whole number of at least 1"
			}
			*h.dst = n
		}
	}
	return ""
}

// finishWhole writes the answer of a request that was not streamed to the
// client (or whose stream never committed): the X-Detour-* headers, then
// the failure's envelope with its real status, or body from ok.
func finishWhole(w http.ResponseWriter, call *dispatch.Call, res *dispatch.Result, ok func() ([]byte, error)) {
	a := answer{id: call.ID, route: call.Model, target: res.Target, provider: res.Provider, attempts: res.Attempts}
	if res.Failure != nil {
		a.class = res.Failure.Class.String()
	}
	detourHeaders(w.Header(), a)
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(clientWriteTimeout))
	if f := res.Failure; f != nil {
		writeEnvelope(w, f.Status, failureEnvelope(f))
		return
	}
	b, err := ok()
	if err != nil {
		w.Header().Set("X-Detour-Class", "server_error")
		writeError(w, http.StatusBadGateway, "server_error", "server_error", "the upstream's answer could not be translated: "+err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Write(b)
}
