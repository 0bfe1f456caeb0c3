package responses

import (
	"regexp"
	"strings"
	"testing"
)

// Review 51a: docs/doors.md says of a cut answer "The item the limit or
// filter cut (the last one, still being written) is status: "incomplete"
// too … whole or streamed; the items finished before it are completed",
// and FromCompletion marks the last item alone. The stream marks every
// item still open at End: two calls introduced together (the review 48b
// shape, both kept open until their arguments come), the first one's
// arguments whole, the second's cut at the limit — get_weather, whose
// arguments are complete JSON, closes "incomplete" too.
func TestR51aCutStreamMarksOnlyTheCutItemIncomplete(t *testing.T) {
	s := NewStream(nil, "m", 1)
	var out strings.Builder
	for _, c := range []string{
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":""}},{"index":1,"id":"call_b","type":"function","function":{"name":"get_time","arguments":""}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"function":{"arguments":"{\"tz\":\"C"}}]}}]}`,
		`{"id":"c","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`,
	} {
		b, err := s.Chunk([]byte(c))
		if err != nil {
			t.Fatal(err)
		}
		out.Write(b)
	}
	out.Write(s.End())
	done := regexp.MustCompile(`"type":"response.output_item.done".*?"status":"(\w+)".*?"name":"(\w+)"`)
	for _, l := range strings.Split(out.String(), "\n") {
		if m := done.FindStringSubmatch(l); m != nil && m[2] == "get_weather" && m[1] != "completed" {
			t.Errorf("get_weather, whose arguments {\"city\":\"Paris\"} were whole before the cut, closed %q; want completed (only the cut get_time is incomplete)\n%s", m[1], l)
		}
	}
}
