package server_test

import (
	"io"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
)

// A client reaches the Chat Completions door at /v1/chat/completions and
// at nothing else: the front serves that path without the mux's matching
// (docs/benchmarks.md, "Round 23"), and every other spelling of it is
// answered as the mux answers it — a path to clean is redirected (307), an
// escaped slash is no such path, a CONNECT is not a chat request.
func TestChatPathAsTheMuxServesIt(t *testing.T) {
	cfg := gatewaytest.Config(t, `
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9", api_key: k}
targets:
  - {name: a, model: m, providers: [p]}
`)
	a, err := app.New(cfg, app.Options{Decisions: decision.Discard, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(t.Context()) })
	body := `{"model":"unknown","messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		method, target string
		status         int
		has            string // in the body or the Location
	}{
		{"POST", "/v1/chat/completions", 404, "model_not_found"}, // the door, which names no such model
		{"GET", "/v1/chat/completions", 405, "use POST"},
		{"POST", "/v1//chat/completions", 307, "/v1/chat/completions"},
		{"POST", "/v1/./chat/completions", 307, "/v1/chat/completions"},
		{"POST", "/v1/chat%2Fcompletions", 404, "unknown path"},
		{"POST", "/v1/chat/completions/", 404, "unknown path"},
		{"POST", "/V1/chat/completions", 404, "unknown path"},
	} {
		req := httptest.NewRequest(c.method, c.target, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		w := httptest.NewRecorder()
		a.Server.ServeHTTP(w, req)
		got := w.Body.String() + " " + w.Header().Get("Location")
		if w.Code != c.status || !strings.Contains(got, c.has) {
			t.Errorf("%s %s: %d %q, want %d with %q", c.method, c.target, w.Code, got, c.status, c.has)
		}
		if c.status != 307 && c.has != "unknown path" && req.Pattern != "/v1/chat/completions" {
			t.Errorf("%s %s: the request's pattern is %q", c.method, c.target, req.Pattern)
		}
	}
}
