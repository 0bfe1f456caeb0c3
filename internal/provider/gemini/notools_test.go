package gemini

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestTranslateToolChoiceWithoutTools: Gemini refuses a function calling
// config without function declarations ("Function calling config is set
// without function_declarations."), so a tool_choice with no tool to call
// is not sent (docs/doors.md, "Chat Completions to Claude and Gemini
// targets").
func TestTranslateToolChoiceWithoutTools(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`"tool_choice":"auto"`, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`},
		{`"tools":[],"tool_choice":"required"`, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`},
		{`"tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":"required"`, `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],
			"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":{"type":"object","properties":{}}}]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY"}}}`},
	} {
		out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m",`+tc.in+`,"messages":[{"role":"user","content":"hi"}]}`)))
		if err != nil {
			t.Fatal(err)
		}
		adaptertest.SameJSON(t, out, []byte(tc.want))
	}
}
