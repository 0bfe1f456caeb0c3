package openai

import (
	"strings"
	"testing"
)

// TestSentParamHostile69d: a param of the body sent after FitDescriptions
// is the canonical body's member, in each of OpenAI's spellings of an
// index; the note is no member; a body not fitted keeps every param.
func TestSentParamHostile69d(t *testing.T) {
	long := strings.Repeat("x", MaxDescription+1)
	fitted := []byte(`{"model":"m","messages":[{"role":"system","content":"a"},{"role":"developer","content":"b"},{"role":"user","content":"c"},{"role":"user","content":"d"}],
		"tools":[{"type":"function","function":{"name":"s","description":"short"}},{"type":"function","function":{"name":"l","description":"` + long + `"}}]}`)
	plain := []byte(`{"model":"m","messages":[{"role":"system","content":"a"},{"role":"user","content":"c"}],"tools":[{"type":"function","function":{"name":"s","description":"short"}}]}`)
	cases := []struct {
		body       []byte
		sent, want string
	}{
		{fitted, "messages[0].content", "messages[0].content"},
		{fitted, "messages[1]", "messages[1]"},
		{fitted, "messages[2].content", ""},
		{fitted, "messages[3].content", "messages[2].content"},
		{fitted, "messages.[4].content[0]", "messages[3].content[0]"},
		{fitted, "messages.4.content", "messages[3].content"},
		{fitted, "messages", "messages"},
		{fitted, "messagesx[3]", "messagesx[3]"},
		{fitted, "messages[-1]", "messages[-1]"},
		{fitted, "messages[99999999999999999999999]", "messages[99999999999999999999999]"},
		{fitted, "tools[1].function.description", "tools[1].function.description"},
		{plain, "messages[1].content", "messages[1].content"},
	}
	for _, tc := range cases {
		if got := SentParam(tc.body, tc.sent); got != tc.want {
			t.Errorf("SentParam(%q) = %q, want %q", tc.sent, got, tc.want)
		}
		if string(FitDescriptions(tc.body)) == string(tc.body) && tc.sent != SentParam(tc.body, tc.sent) {
			t.Errorf("%q: a body FitDescriptions keeps has a param moved", tc.sent)
		}
	}
}
