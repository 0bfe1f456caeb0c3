package dispatch

import (
	"math"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/provider"
)

// TestLeftStreamEstimatePricesTheCacheAsCounted: a stream left after its
// upstream counted the prompt (Anthropic's message_start: 21 plain tokens
// and 188,086 read from the cache) is estimated at the cache's price for the
// part the upstream said was cached, and at the write price for the part it
// said was written, with the output the client was served. Before round 57
// the estimate priced the whole count at the plain input price: ten times
// the bill, and the key refused at a tenth of its budget (hostile 57).
func TestLeftStreamEstimatePricesTheCacheAsCounted(t *testing.T) {
	cached, write := 0.5, 6.25
	tgt := &config.Target{Price: &config.Price{Input: 5, Output: 25, CachedInput: &cached, CacheWrite: &write}}
	for _, c := range []struct {
		name    string
		details provider.TokenDetails
		want    float64
	}{
		{"read", provider.TokenDetails{CachedTokens: 188_086}, (21*5 + 188_086*0.5 + 40*25) / 1e6},
		{"written", provider.TokenDetails{CacheWriteTokens: 188_086}, (21*5 + 188_086*6.25 + 40*25) / 1e6},
	} {
		u := provider.Usage{PromptTokens: 188_107, CompletionTokens: 1, TotalTokens: 188_108, PromptTokensDetails: &c.details}
		o := &outcome{billable: true, committed: true, usage: &u, delivered: 40}
		a := decision.Attempt{Billable: true}
		account(&a, tgt, o, []byte(`{"messages":[{"role":"user","content":"hi"}]}`), []byte(`{"messages":[{"role":"user","content":"hi"}]}`))
		if got := a.BudgetUSD(); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: the budget counts $%.6f (estimate %+v), want $%.6f", c.name, got, a.Estimate, c.want)
		}
	}
}
