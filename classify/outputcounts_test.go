package classify

import "testing"

// OutputCounts reads the prompt's tokens, the output asked for and the
// window from the wordings that split them (corpus:
// openai-context-length-completion-legacy,
// vllm-400-max-tokens-or-max-completion-tokens-too-large-request-has-input-tokens,
// anthropic-input-length-and-max-tokens-exceed-context-limit), and nothing
// from a wording that gives one count.
func TestOutputCounts(t *testing.T) {
	for msg, want := range map[string][3]int{
		"This model's maximum context length is 4097 tokens. However, you requested 4295 tokens (3245 in the messages, 1050 in the completion). Please reduce the length of the messages or completion.": {3245, 1050, 4097},
		"'max_tokens' or 'max_completion_tokens' is too large: 65536. This model's maximum context length is 262144 tokens and your request has 203462 input tokens (65536 > 262144 - 203462). None":     {203462, 65536, 262144},
		"input length and `max_tokens` exceed context limit: 189136 + 20000 > 204648, decrease input length or `max_tokens` and try again":                                                               {189136, 20000, 204648},
	} {
		i, o, w, ok := OutputCounts(msg)
		if !ok || [3]int{i, o, w} != want {
			t.Errorf("%q: %d %d %d %v, want %v", msg, i, o, w, ok, want)
		}
	}
	for _, msg := range []string{
		"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
		"prompt is too long: 208310 tokens > 200000 maximum",
		"in the messages, 99999999999999999999 in the completion",
	} {
		if _, _, _, ok := OutputCounts(msg); ok {
			t.Errorf("%q read as a split", msg)
		}
	}
}
