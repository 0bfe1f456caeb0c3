package anthropic

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslateToolChoiceWithoutTools: a tool_choice with no tool to call
// says nothing and is not sent (docs/doors.md, "Chat Completions to Claude
// and Gemini targets"); with the answer tool of a structured answer it is
// that tool's.
func TestTranslateToolChoiceWithoutTools(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"tool_choice":"auto","parallel_tool_calls":false`, `{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`},
		{`"tools":[],"tool_choice":"none"`, `{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]}`},
		{`"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"auto"`, `{"model":"claude","max_tokens":4096,
			"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],
			"tools":[{"name":"f","input_schema":{"type":"object","properties":{}}}],"tool_choice":{"type":"auto"}}`},
	} {
		out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m",`+tc.in+`,"messages":[{"role":"user","content":"hi"}]}`)), "claude")
		if err != nil {
			t.Fatal(err)
		}
		adaptertest.SameJSON(t, out, []byte(tc.want))
	}
}
