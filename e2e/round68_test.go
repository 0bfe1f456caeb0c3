package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestRound68PerMinuteCapARequestAloneMovesOn: Anthropic refuses a request
// over the account's input-tokens-per-minute cap with the same 429 it
// sends when the minute is full ("This request would exceed your
// organization's rate limit of 30,000 input tokens per minute …"; corpus
// anthropic-rate-limit-your-organizations-rate-limit-org-model-429). Read
// as a throttle, one client's 57,000-token request (a long document, no
// prompt cache) cooled the Claude endpoint for every client, each time it
// was sent (a tier-1 account). A request whose own text is over the cap can
// never pass there: overflow, the walk moves on, nothing cools. A small
// request's same answer is the full minute: rate_limited, the endpoint
// cools.
func TestRound68PerMinuteCapARequestAloneMovesOn(t *testing.T) {
	capAnswer := corpus(t, "anthropic-rate-limit-your-organizations-rate-limit-org-model-429")
	fs := fakes(t, map[string]upstreamtest.Script{"claude": script(capAnswer, capAnswer), "gpt": script(ok("gpt-5", "served"), ok("gpt-5", "served"))})
	g := start(t, `
providers:
  - {name: claude, dialect: anthropic, base_url: "{claude}", api_key: `+secret+`}
  - {name: gpt, dialect: openai, base_url: "{gpt}", api_key: `+secret+`}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [claude]}
  - {name: five, model: gpt-5, providers: [gpt]}
routes:
  - {name: r, targets: [sonnet, five]}
`, fs)
	large, _ := json.Marshal(map[string]any{"model": "r", "messages": []any{
		map[string]any{"role": "user", "content": strings.Repeat("Review this function for races and say where it blocks. ", 4000)}}}) // ~228 KB: ~57,000 tokens
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", string(large))
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "sonnet/claude overflow next_target", "five/gpt ok done")
	if r.Status != 200 || d.Attempts[0].Evidence != "phrase:request>per-minute-cap" {
		t.Fatalf("status %d, evidence %q: %s", r.Status, d.Attempts[0].Evidence, r.Body)
	}
	if e, _ := g.health(t).Endpoint("sonnet", "claude"); e.State != "healthy" {
		t.Errorf("the Claude endpoint is %s (%s) after one request over the per-minute cap", e.State, e.CoolingClass)
	}

	g.post(t, "r", "")
	d = g.recs.wait(t, 2)
	wantSteps(t, d, "sonnet/claude rate_limited next_target", "five/gpt ok done")
	if e, _ := g.health(t).Endpoint("sonnet", "claude"); e.State == "healthy" {
		t.Errorf("the Claude endpoint is healthy after a small request met the full minute")
	}
}
