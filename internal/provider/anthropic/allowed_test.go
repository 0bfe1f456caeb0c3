package anthropic

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestAllowedToolsChoice: a Chat Completions allowed_tools choice (the
// Chat Completions reference's tool_choice; openai-go
// ChatCompletionAllowedToolsParam) keeps every tool in the request and
// lets the model call only the listed ones. Claude has no allowed list, so
// the tools it leaves out are not offered, and the mode is Claude's auto
// or any (docs/doors.md, "Chat Completions to Claude and Gemini targets").
// Before, Claude targets refused the choice as if it were malformed.
func TestAllowedToolsChoice(t *testing.T) {
	const tools = `"tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_time"}},{"type":"function","function":{"name":"send_mail"}}],`
	choice := func(mode string) string {
		return `"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"` + mode + `","tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_time"}}]}}`
	}
	const offered = `"tools":[{"name":"get_weather","input_schema":{"type":"object","properties":{}}},{"name":"get_time","input_schema":{"type":"object","properties":{}}}]`
	for _, tc := range []struct{ mode, want string }{
		{"auto", `{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],` + offered + `,"tool_choice":{"type":"auto"}}`},
		{"required", `{"model":"claude","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}],` + offered + `,"tool_choice":{"type":"any"}}`},
	} {
		out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m",`+tools+choice(tc.mode)+`,"messages":[{"role":"user","content":"hi"}]}`)), "claude")
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		adaptertest.SameJSON(t, out, []byte(tc.want))
	}
	// A list naming none of the request's tools would leave Claude a
	// choice among nothing: refused (the route moves on).
	body := `{"model":"m","tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"g"}}]}},"messages":[{"role":"user","content":"hi"}]}`
	if _, err := Translate(adaptertest.ClientRequest(t, []byte(body)), "claude"); err == nil {
		t.Error("allowed_tools naming no tool of the request: want an error")
	}
}
