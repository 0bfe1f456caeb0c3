package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile review 17: end-to-end proofs of today's regressions. Each test
// fails on b30c35d.

// TestR17FeatureGateCoolsForEveryone: GitHub Models answers "vision is not
// enabled for this organization" (400, from the corpus) only to a request
// that carries an image, and answers every other request. The new "not
// enabled for … org" rule makes it forbidden, a counted class: three image
// requests from one client in a row cool the endpoint for everyone, and
// the next client's plain text request is sent to the second target. A
// feature of the request the organisation lacks is the request's (as xAI's
// retired Live Search is, TestRetiredFeatureCoolsNothing); on 7121971 it
// was unknown and cooled nothing.
func TestR17FeatureGateCoolsForEveryone(t *testing.T) {
	// The body of corpus github-copilot-vision-not-enabled-for-this-organization-400.
	gated := upstreamtest.Step{Status: 400, Body: `{"error":{"message":"vision is not enabled for this organization","code":""}}`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `image_url`) {
				return gated
			}
			return ok("model-a", "p")
		},
		"q": script(ok("model-b", "q")),
	})
	g := start(t, twoTargets, fs)
	img := `{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"what is this?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}]}]}`
	for i := 0; i < 3; i++ {
		g.raw(t, http.MethodPost, "/v1/chat/completions", img)
	}
	g.recs.wait(t, 3)
	for _, e := range g.health(t).Endpoints {
		if e.Provider == "p" && e.CooldownUntil != nil {
			t.Errorf("endpoint a/p cooled by one client's image requests: %s (last %s) until %v", e.State, e.LastClass, e.CooldownUntil)
		}
	}
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 4), "a/p ok done")
}

// TestR17PlainTextCarriesAnInternalAddress: a Go relay in front of a model
// server writes its dial error as plain text (http.Error(w, err.Error(),
// 502)). AnswerMessage now hands that text to the client; ForClient
// replaces the address after "dial tcp" with [address] but keeps the same
// host:port inside the URL the error quotes, so the client reads the
// relay's internal backend address (docs/security.md: a client must not
// read an internal address). On 7121971 the client read Detour's own
// "upstream a/p answered server_error (status:502)".
func TestR17PlainTextCarriesAnInternalAddress(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Status: 502, Header: map[string]string{"Content-Type": "text/plain; charset=utf-8"},
			Body: "Post \"http://10.20.30.40:8000/v1/chat/completions\": dial tcp 10.20.30.40:8000: connect: connection refused\n"}),
	})
	g := start(t, `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r, targets: [a]}
`, fs)
	r := g.post(t, "r", "")
	if msg := r.errMessage(t); strings.Contains(msg, "10.20.30.40") {
		t.Errorf("the client reads the relay's internal address: %q", msg)
	}
}

// TestR17RetiredGeminiModelStaysFirst: Google's real 404 for the retired
// gemini-pro-vision ("Gemini 1.0 Pro Vision has been deprecated on July
// 12, 2024 …", status NOT_FOUND) now reads as a feature of the request
// (unknown): the route moves on, nothing cools, and every later request
// tries the retired model first, forever. On 7121971 it was unavailable,
// the endpoint cooled for unavailable_cooldown, and the next request went
// to b first.
func TestR17RetiredGeminiModelStaysFirst(t *testing.T) {
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
