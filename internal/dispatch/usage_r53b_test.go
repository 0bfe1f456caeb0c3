package dispatch

// review53b: price tiers (e95a5ec, 0928ab0).

import (
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

// A stream cut after its commit point whose upstream had counted a long
// prompt (an Anthropic stream's message_start: 300,000 input tokens) is
// both estimated and priced from its incomplete usage; account() appends
// ",long_context" in each branch, and the record says
// "price_tier":"long_context,long_context" (docs/config.md promises
// "long_context" or "fast,long_context").
func TestR53bPriceTierCutLongStreamOnce(t *testing.T) {
	tgt := &config.Target{Price: &config.Price{Input: 3, Output: 15,
		LongContext: &config.LongContextPrice{Above: 200000, Price: config.Price{Input: 6, Output: 22.5}}}}
	o := &outcome{billable: true, committed: true, usage: &provider.Usage{PromptTokens: 300000, CompletionTokens: 10}}
	var a decision.Attempt
	account(&a, tgt, o, []byte(`{"messages":[{"role":"user","content":"hi"}]}`), []byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	if a.PriceTier != "long_context" {
		t.Errorf("a cut stream over the long-context threshold records price_tier %q, want \"long_context\"", a.PriceTier)
	}
	o.usage.Fast = true
	tgt.Price.Fast = &config.Price{Input: 30, Output: 150,
		LongContext: &config.LongContextPrice{Above: 200000, Price: config.Price{Input: 60, Output: 225}}}
	a = decision.Attempt{}
	account(&a, tgt, o, []byte(`{"messages":[{"role":"user","content":"hi"}]}`), []byte(`{"messages":[{"role":"user","content":"hi"}]}`))
	if a.PriceTier != "fast,long_context" {
		t.Errorf("a cut fast stream over the long-context threshold records price_tier %q, want \"fast,long_context\"", a.PriceTier)
	}
}

// The long-context price derived for fast answers (price.fast without its
// own long_context, 0928ab0) carries input and output only: fast's
// cached_input and cache_write, and long_context's, are dropped, so a fast
// answer to a long, mostly cached prompt pays the $60 long-context fast
// input price for every cached token — ten times Anthropic's cache read
// (0.1x the input price; the multipliers stack on fast mode and long
// context pricing: https://platform.claude.com/docs/en/about-claude/pricing).
func TestR53bDerivedFastLongContextKeepsCachePrices(t *testing.T) {
	cfg, err := config.Parse("c.yaml", []byte(`providers: [{name: p, dialect: anthropic, base_url: "https://x.test"}]
targets: [{name: t, model: claude-opus-4-6, providers: [p], price: {input: 5, output: 25, cached_input: 0.5, cache_write: 6.25,
  long_context: {above: 200000, input: 10, output: 37.5, cached_input: 1, cache_write: 12.5},
  fast: {input: 30, output: 150, cached_input: 3, cache_write: 37.5}}}]
`), nil)
	if err != nil {
		t.Fatal(err)
	}
	tg, _ := cfg.Target("t")
	// 300,000 prompt tokens, 290,000 read from the cache, 1,000 output.
	u := &decision.Usage{PromptTokens: 300000, CompletionTokens: 1000, TotalTokens: 301000, CachedTokens: 290000}
	got := cost(tg.Price.Fast, u)
	want := (10000*60 + 290000*6 + 1000*225) / 1e6 // cached at 0.1x the $60 long-context fast input
	if got > want*1.01 || got < want*0.99 {
		q := tg.Price.Fast.For(300000)
		t.Errorf("a fast answer to a 300,000-token prompt, 290,000 cached: $%.4f, want $%.4f (derived fast long_context %+v: cached_input %v, cache_write %v)", got, want, *q, q.CachedInput, q.CacheWrite)
	}
}
