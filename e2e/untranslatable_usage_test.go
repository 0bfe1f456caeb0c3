package e2e

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// costlyBadArgs is a whole answer whose tool call's arguments are not JSON
// (nothing the Messages door can express), reporting 50,000 output tokens.
var costlyBadArgs = upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,` +
	`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write","arguments":"{\"path\": a.txt}"}}]},` +
	`"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":50000,"total_tokens":50010}}`}

// TestUntranslatableAnswerKeepsUsage: an untranslatable whole answer (Call.Whole fails) ran and its
// upstream reported its usage: the attempt records that usage, not a
// cost_unknown, so the reported output tokens count against the
// client's budget (a review found them dropped when the attempt failed).
func TestUntranslatableAnswerKeepsUsage(t *testing.T) {
	cfg := `
client_keys: [client-key-1]
providers:
  - {name: first, dialect: openai, base_url: "{first}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [first], price: {input: 1, output: 100}}
routes:
  - {name: one, targets: [gpt]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"first": script(costlyBadArgs)})
	g := start(t, cfg, fs)
	r := g.raw(t, "POST", "/v1/messages", `{"model":"one","max_tokens":60000,"messages":[{"role":"user","content":"hi"}]}`,
		"Authorization", "Bearer client-key-1", "anthropic-version", "2023-06-01")
	d := g.recs.wait(t, 1)
	a, _ := json.Marshal(d.Attempts[0])
	t.Logf("client got %d; attempt: %s", r.Status, a)
	if d.Attempts[0].Usage == nil {
		t.Errorf("the upstream reported 50000 completion tokens for a billable attempt, the record keeps none (cost_unknown=%v)", d.Attempts[0].CostUnknown)
	}
}

// TestUntranslatableAnswerSpendCounted: the same through a client budget: $5 of reported output on a $1
// budget, and the next request is refused.
func TestUntranslatableAnswerSpendCounted(t *testing.T) {
	cfg := `
client_keys:
  - {name: tight, key: key-tight, budget: {usd_per_day: 1}}
providers:
  - {name: first, dialect: openai, base_url: "{first}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [first], price: {input: 1, output: 100}}
routes:
  - {name: one, targets: [gpt]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"first": script(costlyBadArgs, costlyBadArgs)})
	g := start(t, cfg, fs)
	body := `{"model":"one","max_tokens":60000,"messages":[{"role":"user","content":"hi"}]}`
	r := g.raw(t, "POST", "/v1/messages", body, "Authorization", "Bearer key-tight", "anthropic-version", "2023-06-01")
	g.recs.wait(t, 1)
	r2 := g.raw(t, "POST", "/v1/messages", body, "Authorization", "Bearer key-tight", "anthropic-version", "2023-06-01")
	t.Logf("first %d, second %d %s", r.Status, r2.Status, r2.Body)
	if r2.Status != 429 {
		t.Errorf("after $5 of reported output on a $1 budget the next request got %d, want 429 client_budget_exceeded (upstream calls: %d)", r2.Status, fs["first"].Calls())
	}
}
