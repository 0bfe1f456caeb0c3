package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

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

// TestRound68FastModeAskedOfAnAccountWithoutItCoolsAndPagesNothing: an
// organization granted no fast mode answers a request that asks for it
// ("speed": "fast") "This request would exceed your rate limit of 0 fast
// mode input tokens per minute" (corpus
// anthropic-429-rate-limit-of-0-fast-mode-input-tokens-per-minute). Read as
// a throttle, one client's fast-mode requests cooled the endpoint every
// other client is served by; read as the zero allowance it is, the account
// and a page. It is that request's choice: the walk moves on, the Claude
// endpoint serves the next request, no page is sent.
func TestRound68FastModeAskedOfAnAccountWithoutItCoolsAndPagesNothing(t *testing.T) {
	for name, ask := range map[string]string{
		"compact": `{"model":"r","max_tokens":64,"speed":"fast","messages":[{"role":"user","content":"hi"}]}`,
		// Anthropic reads JSON, not bytes: "speed" : "fast" with blanks
		// and line breaks is fast mode too (review 68l: read as two
		// spellings, it was quota, and the account cooled and paged).
		"blank before the colon": "{\"model\":\"r\",\"max_tokens\":64,\n  \"speed\" : \"fast\",\n  \"messages\":[{\"role\":\"user\",\"content\":\"hi\"}]}",
	} {
		t.Run(name, func(t *testing.T) { fastModeAskedOnce(t, ask) })
	}
}

func fastModeAskedOnce(t *testing.T, ask string) {
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
	r := g.raw(t, http.MethodPost, "/v1/messages", ask, "anthropic-version", "2023-06-01")
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "opus/claude unknown next_target", "five/gpt ok done")
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if e, _ := g.health(t).Endpoint("opus", "claude"); e.State != "healthy" {
		t.Errorf("the Claude endpoint is %s (%s) after one client asked for fast mode", e.State, e.CoolingClass)
	}
	r = g.raw(t, http.MethodPost, "/v1/messages", `{"model":"r","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`, "anthropic-version", "2023-06-01")
	if got := r.Header.Get("X-Detour-Target"); r.Status != 200 || got != "opus" {
		t.Errorf("the next request: status %d served by %q, want 200 by opus", r.Status, got)
	}
	time.Sleep(200 * time.Millisecond) // a page is posted on its own goroutine
	if n := len(hook.all()); n != 0 {
		t.Errorf("one client's fast-mode request paged the operator: %v", hook.all())
	}
}
