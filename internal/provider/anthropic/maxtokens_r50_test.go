package anthropic

import "testing"

// Anthropic's models overview lists claude-opus-4-0 as the alias of
// claude-opus-4-20250514 (Opus 4, 32,000 output tokens; as
// claude-sonnet-4-0 is Sonnet 4's): read as a later Opus, it got 64,000,
// and Anthropic refuses every request naming no limit ("max_tokens: 64000
// > 32000, which is the maximum allowed number of output tokens for …").
func TestMaxTokensOpus40Alias_r50(t *testing.T) {
	for model, want := range map[string]int{
		"claude-opus-4-0":   32000,
		"claude-sonnet-4-0": 64000,
	} {
		if got := maxTokensFor(model, 1000); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
		}
	}
}
