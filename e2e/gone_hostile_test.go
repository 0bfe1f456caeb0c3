package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A hostile review's end-to-end proofs: each test failed before its fix.

// TestPlainTextHidesAnInternalAddress: a Go relay in front of a model
// server writes its dial error as plain text (http.Error(w, err.Error(),
// 502)). AnswerMessage now hands that text to the client; ForClient
// replaces the address after "dial tcp" with [address] but keeps the same
// host:port inside the URL the error quotes, so the client reads the
// relay's internal backend address (docs/security.md: a client must not
// read an internal address).
func TestPlainTextHidesAnInternalAddress(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Status: 502, Header: map[string]string{"Content-Type": "text/plain; charset=utf-8"},
			Body: "Post \"http://10.20.30.40:8000/v1/chat/completions\": dial tcp 10.20.30.40:8000: connect: connection refused\n"}),
	})
	g := start(t, oneTarget, fs)
	r := g.post(t, "r", "")
	if msg := r.errMessage(t); strings.Contains(msg, "10.20.30.40") {
		t.Errorf("the client reads the relay's internal address: %q", msg)
	}
}

// TestRetiredGeminiModelCools: Google's real 404 for the retired
// gemini-pro-vision ("Gemini 1.0 Pro Vision has been deprecated on July
// 12, 2024 …", status NOT_FOUND) now reads as a feature of the request
// (unknown): the route moves on, nothing cools, and every later request
// tries the retired model first, forever.
func TestRetiredGeminiModelCools(t *testing.T) {
	gone := upstreamtest.Step{Status: 404, Header: map[string]string{"Content-Type": "application/json; charset=UTF-8"},
		Body: `{ "error": { "code": 404, "message": "Gemini 1.0 Pro Vision has been deprecated on July 12, 2024. Consider switching to different model, for example gemini-1.5-flash.", "status": "NOT_FOUND" } }`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(gone),
		"q": script(ok("model-b", "q")),
	})
	g := start(t, `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: gemini-pro-vision, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, strategy: fastest, targets: [a, b]}
`, fs)
	g.post(t, "r", "")
	d := g.recs.wait(t, 1)
	if len(d.Attempts) == 0 || d.Attempts[0].Class != "unavailable" {
		t.Fatalf("attempts %+v, want a/p unavailable first", d.Attempts)
	}
}
