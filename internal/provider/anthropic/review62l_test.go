package anthropic

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// Review 62l: docs/doors.md ("prompt_cache_key … where it marked nothing
// itself, the prompt's last block gets cache_control"), provider.go's
// CachePrompt comment and the commit say the key marks the prompt only
// where the client marked nothing. Translate checks the root
// cache_control and the last block alone: a client that placed its own
// breakpoints (a system prompt it caches on purpose, Cline's or Roo's
// marks through LiteLLM) gets one more on the last block, a cache write
// (1.25x) of the tail on every request; with four marks of its own, the
// added one makes limitBreakpoints drop the client's second mark.
func TestReview62lCacheKeyAddsAMarkBesideTheClients(t *testing.T) {
	const mark = `"cache_control":{"type":"ephemeral"}`
	sys := `{"role":"system","content":[{"type":"text","text":"long stable system prompt","cache_control":{"type":"ephemeral"}}]}`
	body := `{"model":"m","prompt_cache_key":"s1","messages":[` + sys + `,{"role":"user","content":"question one"}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(body)), "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(out), mark); n != 1 {
		t.Errorf("the client marked its system prompt: %d marks, want its own alone (docs/doors.md: the key marks \"where it marked nothing itself\"):\n%s", n, out)
	}

	// Four marks of the client's own: system, and three user turns; the
	// conversation ends with a tool result it did not mark.
	u := func(s string) string {
		return `{"role":"user","content":[{"type":"text","text":"` + s + `","cache_control":{"type":"ephemeral"}}]}`
	}
	a := `{"role":"assistant","content":"ok"}`
	call := `{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	body = `{"model":"m","prompt_cache_key":"s1","tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}],"messages":[` +
		sys + `,` + u("turn one") + `,` + a + `,` + u("turn two") + `,` + a + `,` + u("turn three") + `,` + call +
		`,{"role":"tool","tool_call_id":"c1","content":"result"}]}`
	out, err = Translate(adaptertest.ClientRequest(t, []byte(body)), "claude-sonnet-4-5")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"text":"turn one",`+mark) {
		t.Errorf("the client's own mark on turn one was dropped for the key's:\n%s", out)
	}
}
