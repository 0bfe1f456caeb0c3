package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 61c: a left stream's estimate (docs/config.md, client_keys)
// counted "the bytes of its JSON strings at 4 bytes a token" — and numbers
// only in an embeddings request's top-level "input" (probe 53b). A chat
// request whose bulk is numbers, booleans and nulls (a tool's parameter
// schema: "enum":[0,1,2,…], "examples", "default") is read by the upstream
// — the tool definitions are part of the prompt it bills — but was
// estimated at almost nothing (29 tokens for 169 KB): a budgeted key that
// left each stream after its first content spent a fraction of what the
// provider bills. Now a number's bytes count as a string's do.
func TestReview61cLeftStreamCountsNumbersInTools(t *testing.T) {
	for _, tc := range []struct {
		name string
		item func(i int) string
	}{
		{"integers", func(i int) string { return strconv.Itoa(i) }},
		{"booleans and nulls", func(i int) string { return [...]string{"true", "false", "null"}[i%3] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := upstreamtest.ChatStream("gpt-4o", "hel", "lo")
			stall := upstreamtest.Step{Events: evs[:2], Stall: true} // role and first content; no usage yet
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(stall, ok("gpt-4o", "y"))})
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			g := startClock(t, hugeUsageCfg, fs, clk)
			const n = 30000 // within a 128k window: ~2 tokens a value and its separator
			items := make([]string, n)
			for i := range items {
				items[i] = tc.item(i)
			}
			tool := `{"type":"function","function":{"name":"pick","parameters":{"type":"object","properties":{"x":{"enum":[` +
				strings.Join(items, ",") + `]}}}}}`
			body := `{"model":"deep","stream":true,"tools":[` + tool + `],"messages":[{"role":"user","content":"pick one"}]}`
			leaveStream(t, g, "/v1/chat/completions", body, `"hel"`)
			d := g.recs.wait(t, 1)
			est := d.Attempts[0].Estimate
			// An upstream renders each enum value as at least one token (OpenAI's
			// tool rendering: "x?: 0 | 1 | 2 …", a value and its separator);
			// at 4 bytes a token the estimate holds at least a third of that.
			t.Logf("body %d bytes, %d enum values; estimate %+v, budget counts $%.6f", len(body), n, est, d.Attempts[0].BudgetUSD())
			if est == nil || est.InputTokens < n/3 {
				got := 0
				if est != nil {
					got = est.InputTokens
				}
				t.Errorf("a left stream whose prompt holds %d enum values (%d bytes) is estimated at %d input tokens: the upstream bills at least %d, and 4 bytes a token reads %d",
					n, len(body), got, n, n/3)
			}
		})
	}
}
