package e2e

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// max_billable_attempts 1 (the header): the refusal spends none, the
// resend's billable failure (an unusable answer) spends it, as a first
// attempt's would: no next target, the client told not to retry.
func TestReview64eMaxBillableOneResendFails(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"strict": p64eRefuseThen(p64eVLLM, upstreamtest.Step{Body: `{"object":"list","data":[],"usage":{"prompt_tokens":4,"total_tokens":4}}`}),
		"other":  script(upstreamtest.Step{Body: p64eB64}),
	})
	g := start(t, base64RefusedCfg, fs)
	r := g.raw(t, "POST", "/v1/embeddings", p64eBody, "X-Detour-Max-Billable-Attempts", "1")
	d := g.recs.wait(t, 1)
	n, with := p64eCalls(fs["strict"])
	on, _ := p64eCalls(fs["other"])
	t.Logf("client %d should-retry=%q %s; steps %q strict %d(%d) other %d", r.Status, r.Header.Get("X-Should-Retry"), r.Body, steps(d), n, with, on)
	if n != 2 || on != 0 {
		t.Errorf("billable attempts past 1: strict %d other %d", n, on)
	}
}

// A budgeted key on memory and Redis: the refusal spends nothing; each
// request spends the resend's cost once ($0.60 of a $1 day: two admitted,
// the third refused). Counted twice, the second would be refused.
func TestReview64eBudgetMemoryAndRedis(t *testing.T) {
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			cfg := `
client_keys:
  - {name: team, key: key-team, budget: {usd_per_day: 1}, max_concurrent: 1}
providers:
  - {name: strict, dialect: openai, base_url: "{strict}", api_key: ` + secret + `}
targets:
  - {name: bge, model: bge-m3, providers: [strict], price: {input: 150000, output: 0}}
routes:
  - {name: vectors, targets: [bge]}
`
			if store == "redis" {
				cfg += "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\n"
			}
			ref := `{"object":"error","message":"base64 encoding is not currently supported","type":"BadRequestError","param":null,"code":400,"usage":{"prompt_tokens":4,"total_tokens":4}}`
			fs := fakes(t, map[string]upstreamtest.Script{"strict": p64eRefuseThen(ref, upstreamtest.Step{Body: p64eFloats})})
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			g := startClock(t, cfg, fs, clk)
			var got []int
			for i := 0; i < 3; i++ {
				clk.Set(time.Date(2026, 12, 1, 10, 0, 5*(i+1), 0, time.UTC))
				r := g.raw(t, "POST", "/v1/embeddings", p64eBody, "Authorization", "Bearer key-team")
				got = append(got, r.Status)
			}
			d := g.recs.wait(t, 1)
			t.Logf("statuses %v; first cost %v", got, p64eDump(t, d.CostUSD))
			if got[0] != 200 || got[1] != 200 || got[2] != 429 {
				t.Errorf("statuses %v, want 200 200 429", got)
			}
		})
	}
}
