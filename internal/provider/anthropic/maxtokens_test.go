package anthropic

import "testing"

// A request naming no limit gets the model's own output maximum, read
// from its name as Anthropic, Bedrock, Vertex and OpenRouter write it, and
// fitted beside a long input into the context window.
func TestMaxTokensFor(t *testing.T) {
	for model, want := range map[string]int{
		"claude-sonnet-4-5-20250929":                64000,
		"claude-sonnet-4-20250514":                  64000,
		"claude-haiku-4-5":                          64000,
		"claude-opus-4-5-20251101":                  64000,
		"claude-opus-4-20250514":                    32000,
		"claude-opus-4-1-20250805":                  32000,
		"claude-opus-4@20250514":                    32000,
		"anthropic.claude-sonnet-4-5-20250929-v1:0": 64000,
		"anthropic/claude-opus-4.1":                 32000,
		"claude-3-7-sonnet-20250219":                64000,
		"claude-3-5-haiku-20241022":                 8192,
		"claude-3-haiku-20240307":                   4096,
		"my-claude-proxy-model":                     4096,
	} {
		if got := maxTokensFor(model, 1000); got != want {
			t.Errorf("%s: %d, want %d", model, got, want)
		}
	}
	// 450 KB of conversation (~150,000 tokens at three bytes each) leaves
	// ~49,000 of the 200,000-token window; a full one, the old default.
	if got := maxTokensFor("claude-sonnet-4-5", 450_000); got != 200_000-150_000-1024 {
		t.Errorf("a long conversation: %d", got)
	}
	if got := maxTokensFor("claude-sonnet-4-5", 700_000); got != DefaultMaxTokens {
		t.Errorf("a full window: %d", got)
	}
}

// A client's limit above the Claude model's own maximum is sent as that
// maximum (probe 52b: a GPT-5 client's 100,000 made a fallback to Claude a
// 400); below it, as the client set it; a model whose family is not read
// keeps the client's.
func TestCapToModel(t *testing.T) {
	for _, c := range []struct {
		model   string
		n, want int
	}{
		{"claude-sonnet-4-5", 100_000, 64_000},
		{"claude-opus-4-1-20250805", 50_000, 32_000},
		{"claude-3-5-haiku-latest", 10_000, 8_192},
		{"claude-sonnet-4-5", 1_000, 1_000},
		{"claude-opus-4-6", 100_000, 100_000}, // writes 128,000: not capped at the default's floor (review 52b)
		{"my-claude-deployment", 100_000, 100_000},
	} {
		if got := capToModel(c.model, c.n); got != c.want {
			t.Errorf("%s, %d: %d, want %d", c.model, c.n, got, c.want)
		}
	}
}
