package dispatch

import (
	"math"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

// A target's web_search and web_fetch prices (USD per 1,000 uses) price
// the uses its answer reports, beside the tokens: Anthropic's $10 per
// 1,000 searches (https://platform.claude.com/docs/en/about-claude/pricing).
// The docs' web search stream (testdata web_search.sse: 10,682 input, 510
// output, one search) on Sonnet at $3/$15 costs 10,682×3 + 510×15
// millionths, plus $0.01. No price, no fee (never guessed); a count past
// what the answer's bytes can show is billed at that bound and the record
// says capped; a negative one is none (build 66i).
func TestAccountToolFeesBuild66i(t *testing.T) {
	priced := &config.Price{Input: 3, Output: 15, WebSearch: f64(10), WebFetch: f64(0)}
	plain := &config.Price{Input: 3, Output: 15}
	fast := &config.Price{Input: 5, Output: 25, WebSearch: f64(10), Fast: &config.Price{Input: 30, Output: 150, WebSearch: f64(10)}}
	tokens := (10682*3 + 510*15) / 1e6
	for _, c := range []struct {
		name            string
		p               *config.Price
		u               provider.Usage
		bytes           int64
		searches, fetch int
		capped          bool
		want            float64
	}{
		{"one search", priced, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, WebSearches: 1}, 20000, 1, 0, false, tokens + 0.01},
		{"fetches at a zero price", priced, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, WebFetches: 3}, 20000, 0, 3, false, tokens},
		{"unpriced: tokens alone, counts kept", plain, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, WebSearches: 4}, 20000, 4, 0, false, tokens},
		{"no count: nothing charged", priced, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192}, 20000, 0, 0, false, tokens},
		{"negative: none", priced, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, WebSearches: -1 << 40}, 20000, 0, 0, false, tokens},
		// 2^53 searches would be $9·10¹³; 20,000 bytes show at most 312,
		// and a small answer may count 64 whatever its size.
		{"huge: bounded by the answer", priced, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, WebSearches: 1 << 62}, 20000, 312, 0, true, tokens + 3.12},
		{"huge in a small answer", priced, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, WebSearches: 1 << 62}, 300, 64, 0, true, tokens + 0.64},
		{"a few in a small answer: as counted", priced, provider.Usage{PromptTokens: 10682, CompletionTokens: 510, TotalTokens: 11192, WebSearches: 9}, 300, 9, 0, false, tokens + 0.09},
		{"fast answer: the fee at its tier", fast, provider.Usage{PromptTokens: 1000, CompletionTokens: 100, TotalTokens: 1100, WebSearches: 2, Fast: true}, 20000, 2, 0, false, (1000*30+100*150)/1e6 + 0.02},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := c.u
			var a decision.Attempt
			account(&a, &config.Target{Price: c.p}, &outcome{usage: &u, ok: true, billable: true, answerBytes: c.bytes}, nil, nil)
			if a.Usage.WebSearchRequests != c.searches || a.Usage.WebFetchRequests != c.fetch || a.Usage.Capped != c.capped {
				t.Errorf("record: %d searches, %d fetches, capped %v; want %d, %d, %v",
					a.Usage.WebSearchRequests, a.Usage.WebFetchRequests, a.Usage.Capped, c.searches, c.fetch, c.capped)
			}
			if a.CostUSD == nil || math.Abs(float64(*a.CostUSD)-c.want) > 1e-12 {
				t.Errorf("cost %v, want %v", a.CostUSD, c.want)
			}
		})
	}

	// Not billable costs nothing, its searches included.
	u := provider.Usage{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11, WebSearches: 5}
	var a decision.Attempt
	account(&a, &config.Target{Price: priced}, &outcome{usage: &u, billable: false, answerBytes: 20000}, nil, nil)
	if a.CostUSD == nil || *a.CostUSD != 0 {
		t.Errorf("not billable: cost %v, want 0", a.CostUSD)
	}

	// A request's record sums its attempts' uses.
	rec := decision.Decision{Attempts: []decision.Attempt{
		{Billable: true, Usage: &decision.Usage{PromptTokens: 1, WebSearchRequests: 2}},
		{Billable: true, Usage: &decision.Usage{PromptTokens: 1, WebSearchRequests: 1, WebFetchRequests: 1}},
	}}
	totals(&rec, false)
	if rec.Usage == nil || rec.Usage.WebSearchRequests != 3 || rec.Usage.WebFetchRequests != 1 {
		t.Errorf("request usage %+v, want 3 searches and 1 fetch", rec.Usage)
	}
}

// Review 66k left it: an answer's count of searches or fetches the request
// never offered a tool for was billed (up to freeUses, $0.64 at $10 per
// 1,000, on every answer of a broken or lying upstream). A use of a tool
// the request did not offer was not run for it: none, and the record says
// capped. A request that offers the tool pays what the answer counts.
func TestAccountToolFeesNeedTheToolRound66(t *testing.T) {
	priced := &config.Price{Input: 3, Output: 15, WebSearch: f64(10), WebFetch: f64(10)}
	search := []byte(`{"model":"m","max_tokens":64,"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":5}],"messages":[{"role":"user","content":"hi"}]}`)
	fetch := []byte(`{"model":"m","tools":[{"name":"get","input_schema":{"type":"object"}},{"type":"web_fetch_20250910","name":"web_fetch"}],"messages":[]}`)
	none := []byte(`{"model":"m","tools":[{"name":"web_search","description":"my own","input_schema":{"type":"object"}}],"messages":[{"role":"user","content":"use web_search_20250305"}]}`)
	for _, c := range []struct {
		name            string
		body            []byte
		searches, fetch int
		capped          bool
	}{
		{"search offered", search, 2, 0, true},
		{"fetch offered", fetch, 0, 3, true},
		{"neither offered (a client tool named web_search, the type in the prompt)", none, 0, 0, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := provider.Usage{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11, WebSearches: 2, WebFetches: 3}
			var a decision.Attempt
			account(&a, &config.Target{Price: priced}, &outcome{usage: &u, ok: true, billable: true, answerBytes: 20000}, nil, c.body)
			if a.Usage.WebSearchRequests != c.searches || a.Usage.WebFetchRequests != c.fetch || a.Usage.Capped != c.capped {
				t.Errorf("%d searches, %d fetches, capped %v; want %d, %d, %v", a.Usage.WebSearchRequests, a.Usage.WebFetchRequests, a.Usage.Capped, c.searches, c.fetch, c.capped)
			}
		})
	}
}
