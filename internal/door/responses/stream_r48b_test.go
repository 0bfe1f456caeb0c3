package responses

import (
	"strings"
	"testing"
)

// Review 48b (a risk, not a known upstream): a chunk that introduces two
// parallel calls at once, their arguments following in later chunks (the
// shape openai/openai-ruby#638 and headroomlabs-ai/headroom#2890 guard
// against), lost the first call's arguments after 4fa28eb: adding call 1
// closes call 0 with "" and its later pieces are dropped, so the client
// runs get_weather with no arguments. Before 4fa28eb both stayed open and
// both were whole.
func TestCallsIntroducedTogetherKeepTheirArguments_r48b(t *testing.T) {
	s := NewStream(nil, "m", 1)
	var out strings.Builder
	for _, c := range []string{
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}},{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":\"CET\"}"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}`,
	} {
		b, err := s.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	out.Write(s.End())
	if !strings.Contains(out.String(), `"arguments":"{\"city\":\"Paris\"}"`) {
		t.Errorf("get_weather's arguments were lost:\n%s", out.String())
	}
}
