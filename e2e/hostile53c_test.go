package e2e

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 53c: a client steering which price it pays. Anthropic's fast-mode
// page (https://platform.claude.com/docs/en/build-with-claude/fast-mode):
// "Fast mode is priced at 6x standard Opus rates for prompts <= 200K
// tokens, and 12x standard Opus rates for prompts > 200K tokens" — Opus
// 4.6: ≤ 200K input $30 / output $150, > 200K input $60 / output $225 per
// MTok; "Fast mode pricing stacks with other pricing modifiers".
//
// Detour's account(): `p = p.Fast` when usage.speed is "fast", then
// `p.For(input)` — and p.Fast has no long_context (the `fast` mapping takes
// only input/output/cached_input/cache_write/cache_write_1h; a
// `long_context` inside `fast` is a config error). So a fast answer to a
// prompt over 200K is priced at the short fast rate: the operator who
// wrote every price Anthropic publishes still charges the key about half
// of the bill. The client chooses both (speed: "fast" and a long prompt
// with the 1M beta reach Anthropic as written).

const h53cFastLongCfg = `
client_keys:
  - {key: key-coder, name: coder, budget: {usd_per_day: 100}}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: opus, model: claude-opus-4-6, providers: [anthropic],
     price: {input: 5, output: 25, long_context: {above: 200000, input: 10, output: 37.5}, fast: {input: 30, output: 150}}}
`

const (
	h53cFastLongUsage = `{"input_tokens":300000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2000,"service_tier":"standard","speed":"fast"}`
	h53cFastLongBill  = (300000*60 + 2000*225) / 1e6 // $18.45; Detour charges (300000*30+2000*150)/1e6 = $9.30
)

func TestH53cFastModeOverTheLongContextThresholdPaysHalf(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswerWith(h53cFastLongUsage))})
	g := startClock(t, h53cFastLongCfg, fs, testutil.NewClock(time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)))
	msg := `{"model":"opus","max_tokens":4096,"speed":"fast","messages":[{"role":"user","content":"Summarise this repository."}]}`
	g.raw(t, "POST", "/v1/messages", msg, "Authorization", "Bearer key-coder",
		"anthropic-version", "2023-06-01", "anthropic-beta", "fast-mode-2026-02-01,context-1m-2025-08-07").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	if !d.CostUSD.Known() || float64(*d.CostUSD) < h53cFastLongBill-1e-9 {
		t.Errorf("a fast-mode Opus 4.6 answer to a 300,000-token prompt was charged %s to the key; Anthropic bills $%.2f (fast mode over 200K: $60/$225 per MTok)", usd(d.CostUSD), h53cFastLongBill)
	}
}
