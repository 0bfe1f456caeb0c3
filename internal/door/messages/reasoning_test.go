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

// The door signs the thinking it writes for another vendor's reasoning
// (ReasoningSignature), whole and streamed, because the Vercel AI SDK's
// Anthropic provider hands a thinking block back only once a
// signature_delta came (probe 55b: OpenCode's tool loops on DeepSeek's
// thinking mode failed at step two). Handed back, such a block is the
// door's: reasoning_content for the chat body, and dropped before Claude,
// with the request's thinking where the loop's opener is left bare.
func TestDoorSignedThinkingIsTheDoors(t *testing.T) {
	thinking := `{"type":"thinking","thinking":"call the tool","signature":"` + ReasoningSignature + `"}`
	body := `{"model":"m","max_tokens":2000,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":"weather?"},` +
		`{"role":"assistant","content":[` + thinking + `,{"type":"tool_use","id":"t1","name":"get","input":{}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"sunny"}]}]}`
	got, err := Translate([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(got.Body); !strings.Contains(s, `"reasoning_content":"call the tool"`) || strings.Contains(s, ReasoningSignature) {
		t.Errorf("the door's signed thinking did not go back as reasoning_content alone: %s", s)
	}
	claude := string(DropUnsigned([]byte(body)))
	if strings.Contains(claude, "call the tool") || strings.Contains(claude, `"thinking":{`) {
		t.Errorf("Claude would get the door's thinking, or thinking on with the loop's opener bare: %s", claude)
	}
}
