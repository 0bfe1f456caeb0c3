package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// Server-side compaction runs an extra sampling step that the top-level
// counts leave out; Anthropic bills the sum of usage.iterations (its
// compaction guide's example, below). Before round 53 a key paid for the
// last step alone (hostile 53).
func TestUsageIterationsAreSummed(t *testing.T) {
	const answer = `{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-4-6",` +
		`"content":[{"type":"compaction","content":"Summary."},{"type":"text","text":"Next: pagination."}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":23000,"output_tokens":1000,"iterations":[` +
		`{"type":"compaction","input_tokens":180000,"output_tokens":3500},{"type":"message","input_tokens":23000,"output_tokens":1000}]}}`
	u, err := Adapter{}.NativeAnswer(provider.APIMessages, []byte(answer))
	if err != nil {
		t.Fatal(err)
	}
	if u.PromptTokens != 203000 || u.CompletionTokens != 4500 {
		t.Fatalf("usage %+v, want 203,000 in and 4,500 out", u)
	}
	// A stream's message_delta carries them the same way.
	events := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_01\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-opus-4-6\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":23000,\"output_tokens\":1}}}\n\n" +
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Next.\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n" +
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\",\"stop_sequence\":null},\"usage\":{\"output_tokens\":1000,\"iterations\":[{\"type\":\"compaction\",\"input_tokens\":180000,\"output_tokens\":3500},{\"type\":\"message\",\"input_tokens\":23000,\"output_tokens\":1000}]}}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	s := Adapter{}.Stream(strings.NewReader(events), provider.Endpoint{Model: "claude-opus-4-6"})
	var last *provider.Usage
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		if ev.Usage != nil {
			last = ev.Usage
		}
	}
	if last == nil || last.PromptTokens != 203000 || last.CompletionTokens != 4500 {
		t.Fatalf("stream usage %+v, want 203,000 in and 4,500 out", last)
	}
}
