package anthropic

import (
	"strings"
	"testing"
)

// A chat client that sends a blank system message beside a marked one
// (a template's empty slot) relies on Claude answering as it did before
// marks were read: Anthropic refuses a system text block of blanks alone
// ("text content blocks must contain non-whitespace text"), which a
// string system prompt never made. So a blank system message makes no
// block.
func TestBlankSystemMessageMakesNoBlock_review41h(t *testing.T) {
	m := sent(t, `{"model":"x","messages":[
  {"role":"system","content":"  \n"},
  {"role":"system","content":[{"type":"text","text":"You are Roo.","cache_control":{"type":"ephemeral"}}]},
  {"role":"developer","content":[{"type":"text","text":" ","cache_control":{"type":"ephemeral"}}]},
  {"role":"user","content":"hi"}]}`)
	sys, ok := m["system"].([]any)
	if !ok {
		t.Fatalf("system %#v, want blocks", m["system"])
	}
	for _, b := range sys {
		if strings.TrimSpace(b.(map[string]any)["text"].(string)) == "" {
			t.Errorf("a blank system block was sent: %#v", sys)
		}
	}
	if len(sys) != 1 {
		t.Errorf("system %#v, want the one marked block", sys)
	}
}
