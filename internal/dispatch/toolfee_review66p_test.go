package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

// Review 66p: a request that bounds its tool's uses (max_uses) ran at most
// that many: past it Anthropic answers the tool's error
// (max_uses_exceeded), which it does not bill. A count above the sum of
// the offered tools' max_uses is billed at that sum and the record says
// capped; a tool without a positive whole max_uses bounds nothing.
func TestAccountToolFeesMaxUsesReview66p(t *testing.T) {
	priced := &config.Price{Input: 3, Output: 15, WebSearch: f64(10), WebFetch: f64(10)}
	body := func(tools string) []byte {
		return []byte(`{"model":"m","max_tokens":64,"tools":[` + tools + `],"messages":[{"role":"user","content":"hi"}]}`)
	}
	for _, c := range []struct {
		name            string
		body            []byte
		searches, fetch int
		capped          bool
	}{
		{"max_uses 2", body(`{"type":"web_search_20250305","name":"web_search","max_uses":2},{"type":"web_fetch_20250910","name":"web_fetch"}`), 2, 3, true},
		{"two tools: their sum", body(`{"type":"web_search_20250305","name":"a","max_uses":2},{"type":"web_search_20260209","name":"b","max_uses":2},{"type":"web_fetch_20250910","name":"web_fetch","max_uses":1}`), 4, 1, true},
		{"one tool unbounded", body(`{"type":"web_search_20250305","name":"a","max_uses":1},{"type":"web_search_20260209","name":"b"},{"type":"web_fetch_20250910","name":"web_fetch","max_uses":9}`), 5, 3, false},
		{"max_uses not a positive whole number", body(`{"type":"web_search_20250305","name":"a","max_uses":0},{"type":"web_fetch_20250910","name":"web_fetch","max_uses":"1"}`), 5, 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			u := provider.Usage{PromptTokens: 10, CompletionTokens: 1, TotalTokens: 11, WebSearches: 5, WebFetches: 3}
			var a decision.Attempt
			account(&a, &config.Target{Price: priced}, &outcome{usage: &u, ok: true, billable: true, answerBytes: 20000}, nil, c.body)
			if a.Usage.WebSearchRequests != c.searches || a.Usage.WebFetchRequests != c.fetch || a.Usage.Capped != c.capped {
				t.Errorf("%d searches, %d fetches, capped %v; want %d, %d, %v", a.Usage.WebSearchRequests, a.Usage.WebFetchRequests, a.Usage.Capped, c.searches, c.fetch, c.capped)
			}
		})
	}
}
