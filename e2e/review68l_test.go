package e2e

import (
	"net/http"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestReview68lFastModeAskedWithABlankBeforeTheColon: the body Detour sends
// Anthropic at /v1/messages is the client's, its model replaced, so
// "speed" : "fast" is fast mode to Anthropic; read as bytes, the answer
// "rate limit of 0 fast mode input tokens per minute" was quota, and one
// client cooled the account every client is served by and paged the
// operator (TestRound68FastModeAskedOfAnAccountWithoutItCoolsAndPagesNothing
// with the client's JSON written otherwise).
func TestReview68lFastModeAskedWithABlankBeforeTheColon(t *testing.T) {
	zero := corpus(t, "anthropic-429-rate-limit-of-0-fast-mode-input-tokens-per-minute")
	served := upstreamtest.Step{Body: `{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-5","content":[{"type":"text","text":"served"}],"stop_reason":"end_turn","usage":{"input_tokens":3,"output_tokens":1}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"claude": script(zero, served), "gpt": script(ok("gpt-5", "dear"))})
	hook := startHook(t)
	g := start(t, `
alerts: {webhook: "`+hook.URL+`", min_interval: 1h}
providers:
  - {name: claude, dialect: anthropic, base_url: "{claude}", api_key: `+secret+`}
  - {name: gpt, dialect: openai, base_url: "{gpt}", api_key: `+secret+`}
targets:
  - {name: opus, model: claude-opus-5, providers: [claude]}
  - {name: five, model: gpt-5, providers: [gpt]}
routes:
  - {name: r, targets: [opus, five]}
`, fs)
	r := g.raw(t, http.MethodPost, "/v1/messages", "{\"model\":\"r\",\"max_tokens\":64,\n  \"speed\" : \"fast\",\n  \"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}", "anthropic-version", "2023-06-01")
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "opus/claude unknown next_target", "five/gpt ok done")
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if e, _ := g.health(t).Endpoint("opus", "claude"); e.State != "healthy" {
		t.Errorf("the Claude endpoint is %s (%s) after one client asked for fast mode", e.State, e.CoolingClass)
	}
	time.Sleep(200 * time.Millisecond) // a page is posted on its own goroutine
	if n := len(hook.all()); n != 0 {
		t.Errorf("one client's fast-mode request paged the operator: %v", hook.all())
	}
}
