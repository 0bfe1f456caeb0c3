package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review 30c: money and limits.

// An Anthropic stream that counts a big prompt in message_start, then fails
// with overloaded_error before any content, is not billable
// (docs/behaviour.md#budgets: "an error or block before a stream's first
// content are never billable"); the route fails over and the next target
// answers a tiny prompt. The key's tokens_per_minute must meet what was
// used by the attempt that ran, not the 150,000 tokens of an attempt that
// was never billed: the next request is admitted.
func TestReview30cUnbilledAttemptTokensDoNotSpendTheMinute(t *testing.T) {
	msgStart := "event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":150000,"output_tokens":1}}}`
	overloaded := "event: error\ndata: " + `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`
	bad := upstreamtest.Step{Events: []string{msgStart, overloaded}}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(bad), "q": script(okStream("model-b", "Hel", "lo"))})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, `
client_keys:
  - {name: team-t, key: key-team-t, rate: {tokens_per_minute: 100000}}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic], price: {input: 3, output: 15}}
  - {name: b, model: model-b, providers: [q], price: {input: 1, output: 1}}
routes:
  - {name: c, targets: [claude, b], fallback_on: [server_error]}
`, fs, clk)
	r := g.post(t, "c", stream, "Authorization", "Bearer key-team-t")
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	for _, a := range d.Attempts {
		t.Logf("attempt %s/%s billable=%v usage=%+v", a.Target, a.Provider, a.Billable, a.Usage)
	}
	r2 := g.post(t, "c", "", "Authorization", "Bearer key-team-t")
	if r2.Status == 429 {
		t.Fatalf("second request refused: %s — the unbilled attempt's 150000 reported tokens were counted against tokens_per_minute", strings.TrimSpace(string(r2.Body)))
	}
}
