package anthropic

import (
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// TestMessageDeltaKeepsTheCountsItDoesNotSay: message_delta's usage is
// cumulative and each of its input counts optional (Anthropic's SDK updates
// each only where it is present). One that repeats input_tokens and leaves
// the cache counts out kept 0 for them before round 57: a 188,086-token cache
// write was billed as none, $1.185 recorded as $0.0099 (hostile 57). A count
// the delta does say, 0 included, replaces the start's; null is none.
func TestMessageDeltaKeepsTheCountsItDoesNotSay(t *testing.T) {
	start := `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-opus-4-5","content":[],"stop_reason":null,"usage":{"input_tokens":21,"cache_creation_input_tokens":188086,"cache_read_input_tokens":0,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

`
	for _, c := range []struct {
		delta            string
		input, write, rd int
	}{
		{`{"input_tokens":21,"output_tokens":393}`, 21, 188086, 0},
		{`{"output_tokens":393}`, 21, 188086, 0},
		{`{"input_tokens":30,"cache_creation_input_tokens":0,"cache_read_input_tokens":188086,"output_tokens":393}`, 30, 0, 188086},
		// A null count is no count (OpenRouter's Messages API writes
		// "cache_creation_input_tokens":null; review 57 found it read as 0).
		{`{"input_tokens":21,"output_tokens":393,"cache_creation_input_tokens":null,"cache_read_input_tokens":0,"cache_creation":null,"server_tool_use":null}`, 21, 188086, 0},
	} {
		body := start + `event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":` + c.delta + `}

event: message_stop
data: {"type":"message_stop"}

`
		s := Adapter{}.Stream(strings.NewReader(body), testEP)
		var last *struct{ in, write, rd int }
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
				last = &struct{ in, write, rd int }{u.PromptTokens - d.CachedTokens - d.CacheWriteTokens, d.CacheWriteTokens, d.CachedTokens}
			}
		}
		if last == nil || last.in != c.input || last.write != c.write || last.rd != c.rd {
			t.Errorf("delta %s: usage %+v, want input %d, write %d, read %d", c.delta, last, c.input, c.write, c.rd)
		}
	}
}
