package chat_test

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

// A chat client's request that Claude and Gemini targets served before
// cache_control was read must still be served: a mark in a shape Anthropic
// does not take (a bare string, a list, a type that is no string) is no
// mark, never a refused translation; a ttl in another shape (seconds) is
// Anthropic's default ttl. A well-formed mark beside it still goes.
func TestMalformedCacheControlIsNoMark_review41h(t *testing.T) {
	for _, cc := range []string{`{"type":"ephemeral","ttl":3600}`, `"ephemeral"`, `true`, `["ephemeral"]`, `{"type":5}`, `null`} {
		kept := cc[0] == '{' && cc != `{"type":5}` // an ephemeral mark, its ttl the default
		body := `{"model":"x","messages":[
  {"role":"system","content":[{"type":"text","text":"You are terse.","cache_control":` + cc + `}]},
  {"role":"user","content":[{"type":"text","text":"hi","cache_control":` + cc + `},{"type":"text","text":"there","cache_control":{"type":"ephemeral"}}]}]}`
		out, err := anthropic.Translate(&provider.Request{Body: []byte(body)}, "claude-sonnet-4-5")
		if err != nil {
			t.Errorf("cache_control %s: Claude translation refused: %v", cc, err)
			continue
		}
		var m struct {
			System   any `json:"system"`
			Messages []struct {
				Content []map[string]any `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(out, &m); err != nil {
			t.Fatal(err)
		}
		if _, blocks := m.System.([]any); m.System != "You are terse." && !(kept && blocks) {
			t.Errorf("cache_control %s: system %#v, want the string", cc, m.System)
		}
		c := m.Messages[0].Content
		if mark, _ := json.Marshal(c[0]["cache_control"]); len(c) != 2 || kept != (string(mark) == `{"type":"ephemeral"}`) || !kept && string(mark) != "null" || c[1]["cache_control"] == nil {
			t.Errorf("cache_control %s: blocks %v, want the mark dropped (or, a ttl in seconds, the default) and the other kept", cc, c)
		}
		if _, err := gemini.Translate(&provider.Request{Body: []byte(body)}); err != nil {
			t.Errorf("cache_control %s: Gemini translation refused: %v", cc, err)
		}
	}
}
