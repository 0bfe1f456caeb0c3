package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Client limits against what an upstream may report (docs/config.md,
// client_keys): usage is the upstream's word, and no number in it may turn
// a key's spend into headroom.

const hugeUsageCfg = `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 1}, rate: {tokens_per_minute: 100000}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`

// An answer whose usage is 18 digits of tokens (at $10 per million, 1e13
// USD: more micro-dollars than an int64 holds) wrapped the key's spend to a
// negative count, and the key was admitted for the rest of the month.
func TestHugeReportedUsageExhaustsTheBudget(t *testing.T) {
	huge := upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":5,"completion_tokens":999999999999999999,"total_tokens":5}}`}
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			cfg := hugeUsageCfg
			if store == "redis" {
				cfg += "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\n"
			}
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(huge, ok("gpt-4o", "y"))})
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			g := startClock(t, cfg, fs, clk)
			g.post(t, "deep", "", "Authorization", "Bearer key-team-b").wantStatus(t, 200)
			clk.Set(time.Date(2026, 12, 1, 10, 0, 5, 0, time.UTC)) // past a replica's Redis retry interval
			r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b")
			r.wantStatus(t, 429)
			clk.Set(time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC)) // a new minute: the day's budget still refuses
			if r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b"); r.Status != 429 || !strings.Contains(r.errMessage(t), "usd_per_day") {
				t.Errorf("next minute: %d %s, want 429 by usd_per_day", r.Status, r.Body)
			}
			if n := fs["openai"].Calls(); n != 1 {
				t.Errorf("upstream calls %d, want 1", n)
			}
		})
	}
}
