package gemini

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestAllowedToolsChoice: a Chat Completions allowed_tools choice lets the
// model call only the listed functions among the request's tools. Gemini's
// own list, allowedFunctionNames, is taken under mode ANY alone ("This
// should only be set when the Mode is ANY": the FunctionCallingConfig
// reference, ai.google.dev/api/caching#FunctionCallingConfig), so mode
// required is ANY with that list beside every declaration, and mode auto
// declares the listed functions alone (docs/doors.md, "Chat Completions to
// Claude and Gemini targets"). Before, Gemini targets refused the choice.
func TestAllowedToolsChoice(t *testing.T) {
	const tools = `"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{}}}},{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}},{"type":"function","function":{"name":"send_mail","parameters":{"type":"object","properties":{}}}}],`
	choice := func(mode string) string {
		return `"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"` + mode + `","tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_time"}}]}}`
	}
	decl := func(name string) string {
		return `{"name":"` + name + `","parametersJsonSchema":{"type":"object","properties":{}}}`
	}
	const contents = `"contents":[{"role":"user","parts":[{"text":"hi"}]}]`
	for _, tc := range []struct{ mode, want string }{
		{"auto", `{` + contents + `,"tools":[{"functionDeclarations":[` + decl("get_weather") + `,` + decl("get_time") + `]}],"toolConfig":{"functionCallingConfig":{"mode":"AUTO"}}}`},
		{"required", `{` + contents + `,"tools":[{"functionDeclarations":[` + decl("get_weather") + `,` + decl("get_time") + `,` + decl("send_mail") + `]}],"toolConfig":{"functionCallingConfig":{"mode":"ANY","allowedFunctionNames":["get_weather","get_time"]}}}`},
	} {
		out, err := Translate(adaptertest.ClientRequest(t, []byte(`{"model":"m",`+tools+choice(tc.mode)+`,"messages":[{"role":"user","content":"hi"}]}`)))
		if err != nil {
			t.Fatalf("%s: %v", tc.mode, err)
		}
		adaptertest.SameJSON(t, out, []byte(tc.want))
	}
	body := `{"model":"m","tools":[{"type":"function","function":{"name":"f"}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"g"}}]}},"messages":[{"role":"user","content":"hi"}]}`
	if _, err := Translate(adaptertest.ClientRequest(t, []byte(body))); err == nil {
		t.Error("allowed_tools naming no function of the request: want an error")
	}
}
