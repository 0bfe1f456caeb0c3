package anthropic

import (
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// TestReview57MessageDeltaNullCountIsAbsent: Anthropic's SDK updates a
// message_delta's input count only where it is "!= null" (null and absent
// alike: anthropic-sdk-typescript src/lib/MessageStream.ts); the Python
// SDK's MessageDeltaUsage declares each Optional[int] = None. OpenRouter's
// Messages API writes the count as null ("cache_creation_input_tokens":null
// beside "input_tokens":12). deltaUsage takes any raw member, null
// included, as present, and sets the start's 188,086-token cache write to 0:
// the hostile-57 loss again, through null instead of absence.
func TestReview57MessageDeltaNullCountIsAbsent(t *testing.T) {
	body := `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":21,"cache_creation_input_tokens":188086,"cache_read_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"input_tokens":21,"output_tokens":393,"cache_creation_input_tokens":null,"cache_read_input_tokens":0,"cache_creation":null,"server_tool_use":null}}

event: message_stop
data: {"type":"message_stop"}

`
	s := Adapter{}.Stream(strings.NewReader(body), testEP)
	var write int
	for {
		ev, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if u := ev.Usage; u != nil {
			d := u.PromptTokensDetails
			if d == nil {
				d = new(provider.TokenDetails)
			}
			write = d.CacheWriteTokens
		}
	}
	if write != 188086 {
		t.Errorf("cache write after a delta with cache_creation_input_tokens: null: %d, want message_start's 188086", write)
	}
}
