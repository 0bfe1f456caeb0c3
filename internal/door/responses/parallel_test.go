package responses

import (
	"regexp"
	"strings"
	"testing"
)

// Parallel calls stream as OpenAI streams them: each call's
// output_item.added, its argument deltas, its arguments' done and its
// output_item.done before the next call is added. A client that keeps one
// current call (LlamaIndex's OpenAIResponses stream reader) merged two
// open calls into one, the second's name and id on the first's arguments
// (review 48c; OpenAI's order: can1357/oh-my-pi#1882).
func TestParallelCallsStreamOneAfterTheOther(t *testing.T) {
	s := NewStream(nil, "m", 1)
	var out strings.Builder
	for _, c := range []string{
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}}]}`,
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
	var seq []string
	for _, m := range regexp.MustCompile(`"type":"(response\.(?:output_item\.added|output_item\.done|function_call_arguments\.done))","sequence_number":\d+,(?:"item_id":"[^"]*",)?(?:"name":"[^"]*",)?"output_index":(\d)`).FindAllStringSubmatch(out.String(), -1) {
		seq = append(seq, strings.TrimPrefix(m[1], "response.")+" "+m[2])
	}
	want := []string{"output_item.added 0", "function_call_arguments.done 0", "output_item.done 0",
		"output_item.added 1", "function_call_arguments.done 1", "output_item.done 1"}
	if strings.Join(seq, "; ") != strings.Join(want, "; ") {
		t.Errorf("events\n got %q\nwant %q\n%s", seq, want, out.String())
	}
}
