package dispatch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

func TestIncludeUsage(t *testing.T) {
	for _, c := range []struct {
		in, want string
		asked    bool
	}{
		{`{"model":"m","stream":true}`, `{"stream_options":{"include_usage":true},"model":"m","stream":true}`, false},
		{` { }`, ` {"stream_options":{"include_usage":true} }`, false},
		{`{"stream_options":null,"model":"m"}`, `{"stream_options":{"include_usage":true},"model":"m"}`, false},
		{`{"model":"m","stream_options":{"x":1}}`, `{"model":"m","stream_options":{"include_usage":true,"x":1}}`, false},
		{`{"stream_options":{ "include_usage" : false },"messages":[]}`, `{"stream_options":{ "include_usage" : true },"messages":[]}`, false},
		{`{"stream_options":{"include_usage":false,"x":1}}`, `{"stream_options":{"include_usage":true,"x":1}}`, false},
		{`{"model":"m","stream_options":{"include_usage":true}}`, `{"model":"m","stream_options":{"include_usage":true}}`, true},
		{`{"stream_options":"odd"}`, `{"stream_options":"odd"}`, false},
		// Repeated members (which the front refuses; doors never write
		// them) are read as encoding/json reads them, the last one wins,
		// and that one is set.
		{`{"stream_options":{"include_usage":false},"stream_options":{"include_usage":true}}`, `{"stream_options":{"include_usage":false},"stream_options":{"include_usage":true}}`, true},
		{`{"stream_options":{"include_usage":true,"include_usage":false}}`, `{"stream_options":{"include_usage":true,"include_usage":true}}`, false},
		{`{"stream_options":{"include_usage":true},"stream_options":null}`, `{"stream_options":{"include_usage":true},"stream_options":{"include_usage":true}}`, false},
		// The member is found with its name's escapes decoded, at the top
		// level only.
		{`{"stream_\u006fptions":{"include_usage":true}}`, `{"stream_\u006fptions":{"include_usage":true}}`, true},
		{`{"metadata":{"stream_options":1},"model":"m"}`, `{"stream_options":{"include_usage":true},"metadata":{"stream_options":1},"model":"m"}`, false},
	} {
		got, asked := includeUsage([]byte(c.in))
		if string(got) != c.want || asked != c.asked {
			t.Errorf("includeUsage(%s) = %s, %v; want %s, %v", c.in, got, asked, c.want, c.asked)
		}
		var m map[string]any
		if json.Unmarshal(got, &m) != nil {
			t.Errorf("not JSON: %s", got)
		}
	}
}

func TestCost(t *testing.T) {
	cached := 0.30
	p := &config.Price{Input: 3, Output: 15, CachedInput: &cached}
	u := &decision.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000, CachedTokens: 400_000}
	if got, want := cost(p, u), 0.6*3+0.4*0.30+0.1*15; got-want > 1e-12 || want-got > 1e-12 {
		t.Errorf("cost %v, want %v", got, want)
	}
	p.CachedInput = nil // cached input at the input price
	if got, want := cost(p, u), 1.0*3+0.1*15; got-want > 1e-12 || want-got > 1e-12 {
		t.Errorf("cost without a cached price %v, want %v", got, want)
	}
}

// Input written to the prompt cache costs cache_write (Anthropic bills it
// at 1.25x input for the 5-minute cache, 2x for the 1-hour one:
// https://platform.claude.com/docs/en/about-claude/pricing), the input
// price when the target names none; uncached input is what is neither
// read nor written. An upstream's counts past reason (written past the
// prompt, negative) neither take from the cost nor add to it beyond the
// prompt they are part of.
func TestCostOfCacheWrites(t *testing.T) {
	cached, write := 0.30, 3.75
	p := &config.Price{Input: 3, Output: 15, CachedInput: &cached, CacheWrite: &write}
	cost := func(u provider.Usage) float64 {
		var a decision.Attempt
		account(&a, &config.Target{Price: p}, &outcome{usage: &u, ok: true, billable: true}, nil, nil)
		return float64(*a.CostUSD)
	}
	details := func(read, written int) *provider.TokenDetails {
		return &provider.TokenDetails{CachedTokens: read, CacheWriteTokens: written}
	}
	for _, c := range []struct {
		name string
		u    provider.Usage
		want float64
	}{
		{"writes", provider.Usage{PromptTokens: 1_000_000, CompletionTokens: 100_000, PromptTokensDetails: details(400_000, 500_000)},
			0.1*3 + 0.4*0.30 + 0.5*3.75 + 0.1*15},
		{"LiteLLM's name", provider.Usage{PromptTokens: 1_000_000, CacheCreationInputTokens: 500_000}, 0.5*3 + 0.5*3.75},
		{"written past the prompt", provider.Usage{PromptTokens: 1_000_000, PromptTokensDetails: details(0, 9_000_000)}, 1 * 3.75},
		{"read and written past the prompt", provider.Usage{PromptTokens: 1_000_000, PromptTokensDetails: details(600_000, 600_000)},
			0.6*0.30 + 0.4*3.75},
		{"negative writes", provider.Usage{PromptTokens: 1_000_000, PromptTokensDetails: details(0, -9_000_000)}, 1 * 3},
		{"huge writes", provider.Usage{PromptTokens: 1_000_000, PromptTokensDetails: details(0, 9_000_000_000_000_000_000)}, 1 * 3.75},
	} {
		if got := cost(c.u); !near(got, c.want) {
			t.Errorf("%s: cost %v, want %v", c.name, got, c.want)
		}
	}
	p.CacheWrite = nil // written input at the input price: what a config without cache_write costs
	if got, want := cost(provider.Usage{PromptTokens: 1_000_000, PromptTokensDetails: details(0, 500_000)}), 1.0*3; !near(got, want) {
		t.Errorf("cost without a cache_write price %v, want %v", got, want)
	}
}

func near(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }

func TestTotals(t *testing.T) {
	one, two := decision.USD(0.5), decision.USD(0.25)
	rec := &decision.Decision{Attempts: []decision.Attempt{
		{Usage: &decision.Usage{PromptTokens: 1, CompletionTokens: 2, TotalTokens: 3}, CostUSD: &one, Billable: true},
		{Usage: &decision.Usage{PromptTokens: 10, CompletionTokens: 20, TotalTokens: 30, CachedTokens: 5, CacheWriteTokens: 4}, CostUSD: &two, Billable: true},
		{}, // not priced
		{Usage: &decision.Usage{PromptTokens: 100_000}}, // an overload before any content: its input is not billed
	}}
	totals(rec, false)
	if rec.Usage == nil || *rec.Usage != (decision.Usage{PromptTokens: 11, CompletionTokens: 22, TotalTokens: 33, CachedTokens: 5, CacheWriteTokens: 4}) ||
		!rec.CostUSD.Known() || float64(*rec.CostUSD) != 0.75 || rec.CostUnknown {
		t.Errorf("totals: %+v %v", rec.Usage, rec.CostUSD)
	}
	rec = &decision.Decision{Attempts: []decision.Attempt{{CostUSD: &one}, {CostUSD: decision.Unknown(), CostUnknown: true}}}
	totals(rec, false)
	if b, _ := json.Marshal(rec); !rec.CostUnknown || rec.CostUSD.Known() || !strings.Contains(string(b), `"cost_usd":null,"cost_unknown":true`) {
		t.Errorf("unknown: %s", b)
	}
	rec = &decision.Decision{Attempts: []decision.Attempt{{}}}
	totals(rec, false)
	if b, _ := json.Marshal(rec); rec.CostUSD != nil || strings.Contains(string(b), "cost_usd") {
		t.Errorf("no price, no cost: %s", b)
	}
}

// An upstream's usage is its word, but no number in it takes spend away
// or wraps (docs/config.md, client_keys): a negative count counts as
// nothing, a huge one stops at the ceiling, and the cost is never below
// what the output alone is worth.
func TestAccountHostileUsage(t *testing.T) {
	p := &config.Price{Input: 1, Output: 10}
	for _, c := range []struct {
		name string
		u    provider.Usage
		min  float64 // the cost is at least this
	}{
		{"negative prompt", provider.Usage{PromptTokens: -100_000_000, CompletionTokens: 1_000_000, TotalTokens: 1_000_000}, 10},
		{"negative everything", provider.Usage{PromptTokens: -5, CompletionTokens: -5, TotalTokens: -10}, 0},
		{"negative cached", provider.Usage{PromptTokens: 1_000_000, CompletionTokens: 0, TotalTokens: 1_000_000,
			PromptTokensDetails: &provider.TokenDetails{CachedTokens: -9_000_000}}, 1},
		{"huge", provider.Usage{PromptTokens: 9_000_000_000_000_000_000, CompletionTokens: 9_000_000_000_000_000_000, TotalTokens: -1}, 1},
		{"negative written", provider.Usage{PromptTokens: 1_000_000, TotalTokens: 1_000_000,
			PromptTokensDetails: &provider.TokenDetails{CacheWriteTokens: -9_000_000}}, 1},
		{"written past the prompt", provider.Usage{PromptTokens: 1_000_000, CacheCreationInputTokens: 9_000_000_000_000_000_000,
			PromptTokensDetails: &provider.TokenDetails{CachedTokens: 400_000}}, 0.4*1 + 0.6*1},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := c.u
			var a decision.Attempt
			account(&a, &config.Target{Price: p}, &outcome{usage: &u, ok: true, billable: true}, nil, nil)
			g := a.Usage
			for _, n := range []int{g.PromptTokens, g.CompletionTokens, g.TotalTokens, g.CachedTokens, g.CacheWriteTokens} {
				if n < 0 || n > 1<<53 {
					t.Errorf("a count out of [0, 2^53]: %+v", *g)
				}
			}
			if g.CachedTokens+g.CacheWriteTokens > g.PromptTokens {
				t.Errorf("cached or written past the prompt: %+v", *g)
			}
			if a.CostUSD == nil || float64(*a.CostUSD) < c.min {
				t.Errorf("cost %v, want at least %v", a.CostUSD, c.min)
			}
		})
	}
}

// Above a target's long_context threshold every token of the request is
// priced at the tier's prices (Gemini 2.5 Pro: a 300,000-token prompt at
// $2.50/$15, hostile 53); at or below it, at the base price. The input
// counted is every input token, cached ones too.
func TestCostAboveLongContext(t *testing.T) {
	p := &config.Price{Input: 1.25, Output: 10, LongContext: &config.LongContextPrice{Above: 200_000, Price: config.Price{Input: 2.5, Output: 15}}}
	long := &decision.Usage{PromptTokens: 300_000, CompletionTokens: 1_000}
	if got, want := cost(p, long), (300_000*2.5+1_000*15)/1e6; got-want > 1e-12 || want-got > 1e-12 {
		t.Errorf("long prompt: cost %v, want %v", got, want)
	}
	short := &decision.Usage{PromptTokens: 200_000, CompletionTokens: 1_000}
	if got, want := cost(p, short), (200_000*1.25+1_000*10)/1e6; got-want > 1e-12 || want-got > 1e-12 {
		t.Errorf("200,000 tokens: cost %v, want %v", got, want)
	}
	cachedLong := &decision.Usage{PromptTokens: 250_000, CachedTokens: 240_000, CompletionTokens: 10}
	if got, want := cost(p, cachedLong), (10_000*2.5+240_000*2.5+10*15)/1e6; got-want > 1e-12 || want-got > 1e-12 {
		t.Errorf("a mostly cached long prompt: cost %v, want %v", got, want)
	}
}
