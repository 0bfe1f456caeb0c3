package messages

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// review 28d: c74471d writes Anthropic's usage.cache_creation only where
// the writes' total is one Detour reads (cache_write_tokens or the
// top-level cache_creation_input_tokens). LiteLLM's own name for that total
// inside prompt_tokens_details is cache_creation_tokens, beside the split
// (the usage a LiteLLM-compatible Go proxy's cache-billing test feeds as its
// upstream: "prompt_tokens_details":{"cached_tokens":80,…,
// "cache_creation_tokens":30,"cache_creation_token_details":
// {"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20}}, no
// top-level member; a Python cost fixture's LiteLLM usage has the same
// shape). There the split is dropped, cache_creation_input_tokens is
// omitted, and the 30 written tokens are counted as plain input_tokens
// (120 instead of 90): a Messages client is told it wrote nothing.
func TestReview28dSplitWithoutAWritesTotalDetourReads(t *testing.T) {
	in := `{"id":"chatcmpl-cache","object":"chat.completion","created":1,"model":"claude-opus-4-5",
		"choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],
		"usage":{"prompt_tokens":200,"completion_tokens":50,"total_tokens":250,
		"prompt_tokens_details":{"cached_tokens":80,"cache_creation_tokens":30,
		"cache_creation_token_details":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20}}}}`
	want := `{"id":"chatcmpl-cache","type":"message","role":"assistant","model":"claude-opus-4-5",
		"content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","stop_sequence":null,
		"usage":{"input_tokens":90,"output_tokens":50,"cache_read_input_tokens":80,"cache_creation_input_tokens":30,
		"cache_creation":{"ephemeral_5m_input_tokens":10,"ephemeral_1h_input_tokens":20}}}`
	got, err := Answer([]byte(in), "route")
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, got, []byte(want))
}
