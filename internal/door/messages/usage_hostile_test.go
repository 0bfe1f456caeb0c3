package messages

import (
	"math"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// An upstream's counts past reason (a relay's negative or huge numbers)
// never wrap the input the client is told into a count it never sent:
// input_tokens is what the prompt holds beyond the cache's reads and
// writes, at least 0, at most the prompt.
func TestAnthropicUsageDoesNotWrap(t *testing.T) {
	for name, u := range map[string]chat.Usage{
		"negative prompt, a write": {Usage: provider.Usage{PromptTokens: math.MinInt, CacheCreationInputTokens: 1}},
		"negative reads":           {Usage: provider.Usage{PromptTokens: math.MaxInt, PromptTokensDetails: &provider.TokenDetails{CachedTokens: -1}}},
		"huge write":               {Usage: provider.Usage{PromptTokens: 10, CacheCreationInputTokens: math.MaxInt}},
	} {
		got := anthropicUsage(&u)
		if got.InputTokens < 0 || got.InputTokens > max(u.PromptTokens, 0) {
			t.Errorf("%s: input_tokens %d from prompt_tokens %d", name, got.InputTokens, u.PromptTokens)
		}
	}
}
