package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Review 62j: a client that sets OpenAI's prompt_cache_key wants its
// prompt cached; Claude caches only where cache_control marks it, so the
// translation marks the prompt up to its last block (as a root
// cache_control does). A door's translation leaves the key out and says it
// in CachePrompt.
func TestPromptCacheKeyMarksThePrompt(t *testing.T) {
	const msgs = `"messages":[{"role":"user","content":"long context"},{"role":"assistant","content":"ok"},{"role":"user","content":"next turn"}]`
	for _, c := range []struct {
		name, body string
		door, want bool
	}{
		{"chat key", `{"model":"m","prompt_cache_key":"session-1",` + msgs + `}`, false, true},
		{"a key of another type", `{"model":"m","prompt_cache_key":7,` + msgs + `}`, false, true},
		{"a door's flag", `{"model":"m",` + msgs + `}`, true, true},
		{"no key", `{"model":"m",` + msgs + `}`, false, false},
		{"a null key", `{"model":"m","prompt_cache_key":null,` + msgs + `}`, false, false},
		{"an empty key", `{"model":"m","prompt_cache_key":"",` + msgs + `}`, false, false},
	} {
		req := adaptertest.ClientRequest(t, []byte(c.body))
		req = &provider.Request{Body: req.Body, Stream: req.Stream, Translated: req.Translated, CachePrompt: c.door}
		out, err := Translate(req, "claude-sonnet-4-5")
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s := string(out)
		got := strings.Count(s, `"cache_control":{"type":"ephemeral"}`)
		if c.want && (got != 1 || !strings.Contains(s, `"text":"next turn","cache_control"`)) || !c.want && got != 0 {
			t.Errorf("%s: %d marks in %s, want the last block marked: %v", c.name, got, s, c.want)
		}
	}
}
