package messages

import (
	"strings"
	"testing"
)

// An unsigned thinking block in an assistant turn is the reasoning_content
// this door showed as thinking, and goes back as it (DeepSeek's and Kimi's
// thinking modes refuse a tool loop's next step without it: probe 52c); a
// signed one is Claude's own and stays out of the chat body.
func TestUnsignedThinkingGoesBackAsReasoningContent(t *testing.T) {
	body := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"weather?"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"call the tool","signature":""},` +
		`{"type":"tool_use","id":"t1","name":"get","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sunny"}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"signed","signature":"EqQBCgIYAhIM"},{"type":"text","text":"Sunny."}]},` +
		`{"role":"user","content":"thanks"}]}`
	got, err := Translate([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	s := string(got.Body)
	if !strings.Contains(s, `"reasoning_content":"call the tool"`) {
		t.Errorf("the unsigned thinking did not go back as reasoning_content: %s", s)
	}
	if strings.Contains(s, "signed") {
		t.Errorf("Claude's signed thinking reached the chat body: %s", s)
	}
}
