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
