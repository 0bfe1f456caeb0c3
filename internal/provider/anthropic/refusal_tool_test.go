package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestRefusalAfterAToolCallIsAnError: Anthropic's streaming classifiers
// stop an answer with stop_reason "refusal" ("streaming responses from
// Claude's API return stop_reason: "refusal" when streaming classifiers
// intervene", https://docs.anthropic.com/en/docs/test-and-evaluate/strengthen-guardrails/handle-streaming-refusals),
// and may do so in the middle of a tool_use block's input: the call is cut
// ({"locati), and a client that finishes it as it stands would run it. The
// stream ends with an error event, never a finish, whether it is translated
// (chat.completion.chunk) or relayed as it came (the Messages door), as the
// openai adapter ends a filter after a tool call (round 58,
// internal/provider/openai/filtered_test.go). A refusal after text alone is
// an error event too (e2e TestStreamRefusalAfterTextEndsWithAnError),
// and a tool_use stop still finishes.
//
// The events are Anthropic's own: message_start, the tool_use block and its
// first input_json_delta pieces from anthropic-sdk-python's
// tests/lib/streaming/fixtures/tool_use_response.txt (testdata/stream/tool_use.sse),
// the refusal's message_delta from its refusal_response.txt
// (testdata/stream/refusal.sse).
func TestRefusalAfterAToolCallIsAnError(t *testing.T) {
	start := `{"type":"message_start","message":{"id":"msg_019Q1hrJbZG26Fb9BQhrkHEr","type":"message","role":"assistant","model":"claude-sonnet-4-20250514","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":377,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1,"service_tier":"standard"}}}`
	tool := []string{
		`{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01NRLabsLyVHZPKxbKvkfSMn","name":"get_weather","caller":{"type":"direct"},"input":{}}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":""}}`,
		`{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"locati"}}`,
	}
	text := []string{
		`{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"I"}}`,
		`{"type":"content_block_stop","index":0}`,
	}
	refusal := `{"type":"message_delta","delta":{"stop_reason":"refusal","stop_sequence":null,"stop_details":{"type":"refusal","category":"cyber","explanation":"This request was refused due to policy."}},"usage":{"output_tokens":120,"output_tokens_details":{"thinking_tokens":67}}}`
	toolUse := `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":65}}`
	for _, c := range []struct {
		name    string
		blocks  []string
		stop    string
		wantErr bool
	}{
		{"tool then refusal", tool, refusal, true},
		{"text and tool then refusal", append(append([]string(nil), text...), tool...), refusal, true},
		{"tool then tool_use", append(append([]string(nil), tool...), `{"type":"content_block_stop","index":1}`), toolUse, false},
		{"text then refusal", text, refusal, true},
	} {
		var b strings.Builder
		for _, d := range append(append([]string{start}, c.blocks...), c.stop, `{"type":"message_stop"}`) {
			b.WriteString("data: " + d + "\n\n")
		}
		for _, native := range []bool{false, true} {
			var st provider.Stream
			if native {
				st = Adapter{}.NativeStream(provider.APIMessages, strings.NewReader(b.String()), provider.Endpoint{})
			} else {
				st = Adapter{}.Stream(strings.NewReader(b.String()), provider.Endpoint{})
			}
			errs, finished := adaptertest.Ends(t, st)
			if got := errs == 1 && finished == 0; got != c.wantErr || !c.wantErr && finished != 1 {
				t.Errorf("%s (native %v): %d error events, %d finishes; want an error: %v", c.name, native, errs, finished, c.wantErr)
			}
		}
	}
}
