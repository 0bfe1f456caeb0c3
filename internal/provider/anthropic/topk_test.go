package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A chat client's top_k reaches Claude as top_k, beside the temperature
// (Claude takes both); another shape is left out.
func TestTopKReachesClaude(t *testing.T) {
	for _, c := range []struct{ topK, want string }{
		{`40`, `"top_k":40`}, {`-1`, ``}, {`"x"`, ``},
	} {
		body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0.7,"top_k":` + c.topK + `}`
		out, err := Translate(&provider.Request{Body: []byte(body)}, "claude-sonnet-4-5")
		if err != nil {
			t.Fatalf("top_k %s: %v", c.topK, err)
		}
		if got := strings.Contains(string(out), `"top_k"`); got != (c.want != "") || c.want != "" && !strings.Contains(string(out), c.want) {
			t.Errorf("top_k %s: %s", c.topK, out)
		}
	}
}

// Opus 4.7 and later refuse temperature, top_p and top_k: none is sent to
// them (a Bedrock or Vertex id too); earlier models and other families get
// the client's settings.
func TestNoSamplingSettingsToModelsThatRefuseThem(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"temperature":0.7,"top_k":40}`
	for model, want := range map[string]bool{
		"claude-opus-4-7": false, "claude-opus-4-8-20260801": false, "claude-opus-5": false,
		"anthropic.claude-opus-4-7-v1:0": false, "claude-opus-4-7@20260416": false, "anthropic/claude-opus-4.7": false,
		"claude-opus-4-6": true, "claude-opus-4-1": true, "claude-sonnet-4-5": true, "claude-3-7-sonnet-latest": true,
	} {
		out, err := Translate(&provider.Request{Body: []byte(body)}, model)
		if err != nil {
			t.Fatalf("%s: %v", model, err)
		}
		if got := strings.Contains(string(out), `"temperature"`) && strings.Contains(string(out), `"top_k"`); got != want {
			t.Errorf("%s: sampling settings sent %v, want %v: %s", model, got, want, out)
		}
	}
}
