package anthropic

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// sent is the Messages request body Translate makes of a chat body, decoded.
func sent(t *testing.T, body string) map[string]any {
	t.Helper()
	out, err := Translate(&provider.Request{Body: []byte(body)}, "claude-sonnet-4-5")
	if err != nil {
		t.Fatalf("Translate: %v", err)
	}
	var m map[string]any
	if err := json.Unmarshal(out, &m); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	return m
}

// marks lists, in Anthropic's reading order (system, then each message's
// blocks), the cache_control of every block that carries one, as
// "where:ttl" ("-" for the default ttl).
func marks(m map[string]any) []string {
	var out []string
	add := func(where string, b map[string]any) {
		if cc, ok := b["cache_control"].(map[string]any); ok {
			ttl, _ := cc["ttl"].(string)
			if ttl == "" {
				ttl = "-"
			}
			out = append(out, where+":"+cc["type"].(string)+":"+ttl)
		}
	}
	if sys, ok := m["system"].([]any); ok {
		for _, b := range sys {
			add("system", b.(map[string]any))
		}
	}
	for _, msg := range m["messages"].([]any) {
		msg := msg.(map[string]any)
		for _, b := range msg["content"].([]any) {
			b := b.(map[string]any)
			add(msg["role"].(string)+"/"+b["type"].(string), b)
		}
	}
	return out
}

// Roo Code, Aider, Cline and Open WebUI mark their long prompts for Claude's
// prompt cache on chat content parts (cache_control, as OpenRouter and
// LiteLLM carry it): on a Claude target the marks must reach the blocks
// they mark, or every turn pays the whole prompt again at full price.
func TestChatCacheBreakpointsReachClaude(t *testing.T) {
	m := sent(t, `{"model":"x","stream":true,"messages":[
  {"role":"system","content":[{"type":"text","text":"You are Roo, a highly skilled software engineer.","cache_control":{"type":"ephemeral"}}]},
  {"role":"user","content":[{"type":"text","text":"<task>\nweather in Paris\n</task>"},{"type":"text","text":"<environment_details>\n# Current Time\n</environment_details>","cache_control":{"type":"ephemeral"}}]},
  {"role":"assistant","content":"","tool_calls":[{"id":"call_roo_1","type":"function","function":{"name":"alerts","arguments":"{\"state\":\"IDF\"}"}}]},
  {"role":"tool","tool_call_id":"call_roo_1","content":[{"type":"text","text":"(empty)","cache_control":{"type":"ephemeral","ttl":"5m"}}]},
  {"role":"user","content":[{"type":"text","text":"<environment_details>\n# Current Time\n</environment_details>","cache_control":{"type":"ephemeral"}}]}]}`)
	sys, ok := m["system"].([]any)
	if !ok || len(sys) != 1 || sys[0].(map[string]any)["text"] != "You are Roo, a highly skilled software engineer." {
		t.Fatalf("system: %#v", m["system"])
	}
	want := []string{"system:ephemeral:-", "user/text:ephemeral:-", "user/tool_result:ephemeral:5m", "user/text:ephemeral:-"}
	if got := marks(m); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("breakpoints %q, want %q", got, want)
	}
	// The unmarked text and the tool result's content are as before.
	msgs := m["messages"].([]any)
	first := msgs[0].(map[string]any)["content"].([]any)[0].(map[string]any)
	if first["text"] != "<task>\nweather in Paris\n</task>" || first["cache_control"] != nil {
		t.Errorf("first user block: %#v", first)
	}
}

// Without a mark the request is as it always was: the system prompt one
// string (messages joined by a blank line, parts by a newline).
func TestChatWithoutBreakpointsKeepsSystemString(t *testing.T) {
	m := sent(t, `{"model":"x","messages":[
  {"role":"system","content":[{"type":"text","text":"a"},{"type":"text","text":"b"}]},
  {"role":"developer","content":"c"},
  {"role":"user","content":"hi"}]}`)
	if m["system"] != "a\nb\n\nc" {
		t.Errorf("system %#v, want the string \"a\\nb\\n\\nc\"", m["system"])
	}
	if got := marks(m); len(got) != 0 {
		t.Errorf("breakpoints %q, want none", got)
	}
}

// Anthropic refuses more than four breakpoints, a type it does not know,
// and a 1-hour entry after a shorter one: the translation keeps within
// that (the first mark and the last three; unknown types and ttls
// dropped; a late "1h" to the default) instead of turning a client's
// request into a 400.
func TestChatBreakpointsStayWithinAnthropicsLimits(t *testing.T) {
	part := func(text, cc string) string {
		return `{"type":"text","text":"` + text + `","cache_control":` + cc + `}`
	}
	m := sent(t, `{"model":"x","messages":[
  {"role":"system","content":[`+part("s", `{"type":"ephemeral","ttl":"1h"}`)+`]},
  {"role":"user","content":[`+part("u1", `{"type":"ephemeral"}`)+`,`+part("u2", `{"type":"persistent"}`)+`]},
  {"role":"assistant","content":[`+part("a1", `{"type":"ephemeral","ttl":"2h"}`)+`]},
  {"role":"user","content":[`+part("u3", `{"type":"ephemeral"}`)+`]},
  {"role":"assistant","content":[`+part("a2", `{"type":"ephemeral","ttl":"1h"}`)+`]},
  {"role":"user","content":[`+part("u4", `{"type":"ephemeral","ttl":"5m"}`)+`]}]}`)
	want := []string{"system:ephemeral:1h", "user/text:ephemeral:-", "assistant/text:ephemeral:-", "user/text:ephemeral:5m"}
	if got := marks(m); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("breakpoints %q, want %q", got, want)
	}
	// u1 and a1 lost theirs (the first is the system's, the last three u3, a2, u4).
	for _, msg := range m["messages"].([]any) {
		for _, b := range msg.(map[string]any)["content"].([]any) {
			b := b.(map[string]any)
			if (b["text"] == "u1" || b["text"] == "a1" || b["text"] == "u2") && b["cache_control"] != nil {
				t.Errorf("%v kept its mark", b["text"])
			}
		}
	}
}
