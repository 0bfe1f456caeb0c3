package messages

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestAnswerCutInToolCall: an answer cut at its length limit inside a tool
// call's arguments (finish_reason "length", arguments not yet a whole JSON
// object) is a Message with stop_reason max_tokens whose last block is the
// incomplete tool_use, as Anthropic answers one (docs/doors.md, "Answers"):
// its input holds the members that were whole before the cut.
func TestAnswerCutInToolCall(t *testing.T) {
	call := func(args string) string {
		return `{"id":"c","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Writing.",
			"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write","arguments":` + args + `}}]},"finish_reason":"length"}],
			"usage":{"prompt_tokens":10,"completion_tokens":16,"total_tokens":26}}`
	}
	want := func(input string) string {
		return `{"id":"c","type":"message","role":"assistant","model":"m",
			"content":[{"type":"text","text":"Writing."},{"type":"tool_use","id":"call_1","name":"write","input":` + input + `}],
			"stop_reason":"max_tokens","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":16,"cache_read_input_tokens":0,"cache_creation_input_tokens":0}}`
	}
	for _, tc := range []struct{ name, args, input string }{
		{"in a string", `"{\"path\":\"a.txt\",\"content\":\"hello wor"`, `{"path":"a.txt"}`},
		{"after a comma", `"{\"path\":\"a.txt\",  "`, `{"path":"a.txt"}`},
		{"in a key", `"{\"path\":\"a.txt\",\"con"`, `{"path":"a.txt"}`},
		{"after a colon", `"{\"path\":\"a.txt\",\"content\":"`, `{"path":"a.txt"}`},
		{"in a nested object", `"{\"n\":1,\"opts\":{\"a\":[1,2"`, `{"n":1}`},
		{"a whole nested object", `"{\"opts\":{\"a\":[1,2]}"`, `{"opts":{"a":[1,2]}}`},
		// A number at the cut may have lost digits: not whole.
		{"in a number", `"{\"path\":\"a.txt\",\"n\":12"`, `{"path":"a.txt"}`},
		{"a literal", `"{\"ok\":true"`, `{"ok":true}`},
		{"in a literal", `"{\"ok\":tru"`, `{}`},
		{"at the start", `"{"`, `{}`},
		{"before the object", `""`, `{}`},
		{"not an object", `"[1,2"`, `{}`},
		// Whole arguments stay as they are, even when the answer was cut.
		{"whole", `"{\"path\":\"a.txt\"}"`, `{"path":"a.txt"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Answer([]byte(call(tc.args)), "route")
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, got, []byte(want(tc.input)))
		})
	}
	// Bad JSON in an answer that was not cut is the model's own mistake:
	// still an error (the server's dispatch fails the attempt over).
	for _, finish := range []string{"tool_calls", "stop", ""} {
		body := `{"choices":[{"message":{"tool_calls":[{"id":"a","function":{"name":"f","arguments":"{\"a\":"}}]},"finish_reason":"` + finish + `"}]}`
		if _, err := Answer([]byte(body), "m"); err == nil {
			t.Errorf("finish %q: bad arguments, want an error", finish)
		}
	}
}
