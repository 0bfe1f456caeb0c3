package gemini

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A chat client's top_k (Open WebUI's and SillyTavern's sampler, which the
// OpenAI-compatible servers take) reaches Gemini as topK; a value that is
// not a whole number of at least 1 is left out, as before it was read.
func TestTopKReachesGemini(t *testing.T) {
	for _, c := range []struct{ topK, want string }{
		{`40`, `"topK":40`}, {`40.0`, `"topK":40`}, {`0`, ``}, {`"40"`, ``}, {`2.5`, ``}, {`null`, ``},
	} {
		body := `{"model":"m","messages":[{"role":"user","content":"hi"}],"top_k":` + c.topK + `}`
		out, err := Translate(&provider.Request{Body: []byte(body)})
		if err != nil {
			t.Fatalf("top_k %s: %v", c.topK, err)
		}
		if got := strings.Contains(string(out), `"topK"`); got != (c.want != "") || c.want != "" && !strings.Contains(string(out), c.want) {
			t.Errorf("top_k %s: %s", c.topK, out)
		}
	}
}
