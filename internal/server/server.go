package server

import (
	"bytes"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/metrics"
	"github.com/detour-llm/detour/internal/provider"
)

// State is one configuration being served.
type State struct {
	Config     *config.Config
	Dispatcher *dispatch.Dispatcher
	Health     *health.Tracker
}

// Server serves the HTTP API. Create it with New.
type Server struct {
	state   atomic.Pointer[State]
	metrics *metrics.Metrics
	log     *slog.Logger
	mux     *http.ServeMux
}

// New returns a Server for st. m and log may be nil.
func New(st *State, m *metrics.Metrics, log *slog.Logger) *Server {
	if log == nil {
		log = slog.Default()
	}
	s := &Server{metrics: m, log: log, mux: http.NewServeMux()}
	s.state.Store(st)
	s.mux.HandleFunc("/v1/chat/completions", s.chat)
	s.mux.HandleFunc("/v1/models", s.models)
	s.mux.HandleFunc("/v1/health", s.health)
	if m != nil {
		h := m.Handler()
		s.mux.HandleFunc("/metrics", func(w http.ResponseWriter, r *http.Request) {
			// Endpoint and account states are read at scrape time, so they
			// show the truth (shared state included), not the last change
			// this replica happened to cause.
			s.snapshot(r.Context())
			h.ServeHTTP(w, r)
		})
	}
	s.mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "invalid_request_error", "not_found", "unknown path "+r.URL.Path)
	})
	return s
}

// Swap serves st from now on; requests in flight finish on the old state.
// It returns the old state.
func (s *Server) Swap(st *State) *State { return s.state.Swap(st) }

// Current returns the state being served.
func (s *Server) Current() *State { return s.state.Load() }

// ServeHTTP implements http.Handler.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// authorized checks the client key when client_keys are configured.
func authorized(cfg *config.Config, r *http.Request) bool {
	if len(cfg.ClientKeys) == 0 {
		return true
	}
	got, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
	if !ok {
		return false
	}
	match := 0
	for _, k := range cfg.ClientKeys {
		match |= subtle.ConstantTimeCompare([]byte(got), []byte(k))
	}
	return match == 1
}

func (s *Server) chat(w http.ResponseWriter, r *http.Request) {
	st := s.state.Load()
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "method_not_allowed", "use POST for /v1/chat/completions")
		return
	}
	if !authorized(st.Config, r) {
		writeError(w, http.StatusUnauthorized, "authentication_error", "invalid_api_key", "missing or invalid client key: send Authorization: Bearer <key>")
		return
	}
	call, status, msg := parse(w, r, st)
	if call == nil {
		code := "invalid_request"
		kind := "invalid_request_error"
		switch status {
		case http.StatusRequestEntityTooLarge:
			code = "request_too_large"
		case http.StatusNotFound:
			code = "model_not_found"
		}
		writeError(w, status, kind, code, msg)
		return
	}
	call.ID = decision.NewID()
	call.Client = clientLabel(st.Config, r)
	w.Header().Set("X-Detour-Decision", call.ID)
	w.Header().Set("X-Detour-Route", call.Model)
	res := st.Dispatcher.Do(r.Context(), call)
	if res.Committed || res.Canceled {
		return
	}
	h := w.Header()
	if res.Target != "" { // empty when the deadline passed before any attempt
		h.Set("X-Detour-Target", res.Target)
		h.Set("X-Detour-Provider", res.Provider)
	}
	h.Set("X-Detour-Attempts", strconv.Itoa(len(res.Decision.Attempts)))
	_ = http.NewResponseController(w).SetWriteDeadline(time.Now().Add(30 * time.Second))
	if f := res.Failure; f != nil {
		h.Set("X-Detour-Class", f.Class.String())
		h.Set("Content-Type", "application/json")
		w.WriteHeader(f.Status)
		w.Write(f.Envelope())
		return
	}
	h.Set("Content-Type", "application/json")
	w.Write(res.Body)
}

// parse reads and checks the client's request. On failure it returns nil,
// the status and a message for the client.
func parse(w http.ResponseWriter, r *http.Request, st *State) (*dispatch.Call, int, string) {
	limit := st.Config.MaxBodyBytes
	body, err := readBody(w, r, limit)
	if err != nil {
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return nil, http.StatusRequestEntityTooLarge, fmt.Sprintf("request body exceeds %d bytes", limit)
		}
		return nil, http.StatusBadRequest, "could not read the request body: " + err.Error()
	}
	// Only the members the gateway reads are decoded; the body itself goes
	// upstream as sent (but for "model").
	var head struct {
		Model    json.RawMessage `json:"model"`
		Stream   json.RawMessage `json:"stream"`
		Messages json.RawMessage `json:"messages"`
	}
	if err := json.Unmarshal(body, &head); err != nil || bytes.HasPrefix(bytes.TrimSpace(body), []byte("null")) {
		if err == nil {
			err = errors.New("the body must be a JSON object")
		}
		return nil, http.StatusBadRequest, "invalid JSON body: " + err.Error()
	}
	var model string
	if json.Unmarshal(head.Model, &model) != nil || model == "" {
		return nil, http.StatusBadRequest, `"model" must be a non-empty string naming a route or target`
	}
	if !st.Dispatcher.Known(model) {
		return nil, http.StatusNotFound, fmt.Sprintf("unknown model %q; known: %s", model, strings.Join(st.Dispatcher.Names(), ", "))
	}
	var stream bool
	if len(head.Stream) > 0 && string(head.Stream) != "null" {
		if json.Unmarshal(head.Stream, &stream) != nil {
			return nil, http.StatusBadRequest, `"stream" must be a boolean`
		}
	}
	if len(head.Messages) == 0 {
		return nil, http.StatusBadRequest, `"messages" is required`
	}
	call := &dispatch.Call{Model: model, W: w, Req: &provider.Request{Body: body, Stream: stream}}
	for _, h := range []struct {
		name string
		dst  *int
	}{{"X-Detour-Max-Attempts", &call.MaxAttempts}, {"X-Detour-Max-Billable-Attempts", &call.MaxBillable}} {
		if v := r.Header.Get(h.name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n < 1 {
				return nil, http.StatusBadRequest, h.name + " must be a whole number of at least 1"
			}
			*h.dst = n
		}
	}
	return call, 0, ""
}

func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	if r.ContentLength > limit {
		return nil, &http.MaxBytesError{Limit: limit}
	}
	return io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
}

// writeError writes the gateway's own error in the OpenAI envelope.
func writeError(w http.ResponseWriter, status int, kind, code, msg string) {
	b, _ := json.Marshal(map[string]any{"error": map[string]any{"message": msg, "type": kind, "code": code, "param": nil}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	w.Write(b)
}
