package anthropic

import "testing"

// review51b: which names fixedSampling (Opus 4.7+, no temperature/top_p/top_k) takes.
func TestR51bFixedSamplingNames(t *testing.T) {
	for name, want := range map[string]bool{
		"claude-opus-4-7":                     true,
		"claude-opus-4-7-20260416":            true,
		"anthropic.claude-opus-4-7-v1:0":      true, // Bedrock
		"us.anthropic.claude-opus-4-7-v1:0":   true, // Bedrock cross-region profile
		"global.anthropic.claude-opus-4-7-v1": true,
		"claude-opus-4-7@20260416":            true, // Vertex
		"claude-opus-4-20250514":              false,
		"claude-opus-4-1-20250805":            false,
		"claude-opus-4-6":                     false,
		"claude-sonnet-4-7":                   false,
		"claude-opus-5":                       true,
		"claude-opus-4.7":                     true, // dotted (OpenRouter / LiteLLM aliases)
		"anthropic/claude-opus-4.7":           true,
	} {
		if got := fixedSampling(name); got != want {
			t.Errorf("fixedSampling(%q) = %v, want %v", name, got, want)
		}
	}
}
