package classify

import "testing"

// ContextCounts reads the conversation's tokens and the window from each
// vendor's context-length wording (corpus cases named).
func TestContextCounts(t *testing.T) {
	for msg, want := range map[string][2]int{
		// openai-context-length-exceeded
		"This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.": {130512, 128000},
		// gemini-input-token-count-exceeds-max
		"The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).": {1200293, 1048576},
		// anthropic-prompt-too-long-200k
		"prompt is too long: 208310 tokens > 200000 maximum": {208310, 200000},
		// Vertex (probe 57b):
		"Unable to submit request because the input token count is 1251952 but model only supports up to 1048576. Reduce the input token count and try again.": {1251952, 1048576},
	} {
		used, window, ok := ContextCounts(msg)
		if !ok || used != want[0] || window != want[1] {
			t.Errorf("%q: %d, %d, %v", msg, used, window, ok)
		}
	}
	if _, _, ok := ContextCounts("Input is too long for requested model."); ok {
		t.Error("counts read where none are given")
	}
}
