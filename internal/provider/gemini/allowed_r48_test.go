package gemini

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestR48AllowedNamesAreDeclared: under mode ANY, Gemini's
// allowedFunctionNames "should match [FunctionDeclaration.name]" (the
// FunctionCallingConfig reference, cloud.google.com/vertex-ai/generative-ai/docs/reference/rest/v1/ToolConfig).
// An allowed_tools choice in mode required is passed on verbatim, so a
// name the request does not declare (an agent listing a tool it dropped
// this turn; the Claude adapter ignores such names) reaches Gemini as an
// allowed function without a declaration, and a name listed twice is sent
// twice.
func TestR48AllowedNamesAreDeclared(t *testing.T) {
	body := `{"model":"m","tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{}}}}],` +
		`"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"required","tools":[{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"get_weather"}},{"type":"function","function":{"name":"search_web"}}]}},` +
		`"messages":[{"role":"user","content":"hi"}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		ToolConfig struct {
			FunctionCallingConfig struct {
				AllowedFunctionNames []string `json:"allowedFunctionNames"`
			} `json:"functionCallingConfig"`
		} `json:"toolConfig"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if names := got.ToolConfig.FunctionCallingConfig.AllowedFunctionNames; !slices.Equal(names, []string{"get_weather"}) {
		t.Errorf("allowedFunctionNames %q, want the declared functions listed, once: [get_weather]\n%s", names, out)
	}
}
