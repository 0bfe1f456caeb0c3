package messages

import (
	"encoding/json"
	"testing"
)

// Review 32k. DropUnsigned turns thinking off only when the LAST
// assistant message lost its opening thinking block. Anthropic's rule
// ("a final assistant message must start with a thinking block (preceeding
// the lastmost set of tool_use and tool_result blocks)") is about the
// assistant message that opens the current tool loop. In a loop of two
// steps whose first step was answered elsewhere (foreign reasoning, now
// dropped), step two — answered by Claude after DropUnsigned turned
// thinking off for step one's request, so it has no thinking — is intact:
// brokeLast is reset to false and thinking stays on. Anthropic answers
// 400 "messages.1.content.0.type: Expected `thinking` or
// `redacted_thinking`, but found `tool_use`" from step two on, for every
// remaining step of the loop.
func TestMultiStepToolLoopStillDropsThinking_review32k(t *testing.T) {
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[` +
		`{"role":"user","content":"weather in Paris and Rome?"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"foreign reasoning","signature":""},{"type":"tool_use","id":"toolu_a","name":"w","input":{"c":"Paris"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_a","content":"sunny"}]},` +
		`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_b","name":"w","input":{"c":"Rome"}}]},` +
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_b","content":"rain"}]}]}`)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(DropUnsigned(body), &top); err != nil {
		t.Fatal(err)
	}
	if th, ok := top["thinking"]; ok {
		t.Errorf("the tool loop opens (messages.1) with tool_use once its unsigned thinking is dropped, yet thinking stays %s: Anthropic 400s every later step of the loop", th)
	}
}

// Review 32k. DropUnsigned says it drops a thinking block whose
// signature is "empty or missing" (unsignedThinking reads a missing one as
// unsigned), but its precheck returns the body untouched unless it holds
// `"signature":""` or `"signature": ""` byte for byte. Before f5b42d4 a
// block with no signature member was dropped; now it goes to Claude
// (400 "thinking.signature: Field required"). Same for any other spelling
// of the empty value (`"signature" : ""`, a tab, an escaped key).
func TestMissingOrRespacedSignatureStillDropped_review32k(t *testing.T) {
	for name, block := range map[string]string{
		"missing":          `{"type":"thinking","thinking":"foreign"}`,
		"space before ':'": `{"type":"thinking","thinking":"foreign","signature" : ""}`,
		"tab after ':'":    "{\"type\":\"thinking\",\"thinking\":\"foreign\",\"signature\":\t\"\"}",
	} {
		body := []byte(`{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"hi"},` +
			`{"role":"assistant","content":[` + block + `,{"type":"text","text":"hello"}]},{"role":"user","content":"more"}]}`)
		out := DropUnsigned(body)
		var top struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(out, &top); err != nil {
			t.Fatal(err)
		}
		var blocks []struct {
			Type string `json:"type"`
		}
		json.Unmarshal(top.Messages[1].Content, &blocks)
		for _, b := range blocks {
			if b.Type == "thinking" {
				t.Errorf("%s signature: the unsigned thinking block is passed to Claude: %s", name, top.Messages[1].Content)
			}
		}
	}
}

// Review 32k. The opposite side of the same rule: when the last
// assistant turn (answered elsewhere) lost its thinking but it holds no
// tool_use — the client follows it with a plain user message, no tool
// loop is running — Anthropic's "final assistant message must start with a
// thinking block" rule does not apply (it is about the message preceding
// the lastmost tool_use/tool_result set), yet DropUnsigned deletes the
// client's "thinking" and the turn is answered without the reasoning the
// client asked (and budgets) for.
func TestThinkingKeptOutsideAToolLoop_review32k(t *testing.T) {
	body := []byte(`{"model":"claude-sonnet-4-5","max_tokens":4096,"thinking":{"type":"enabled","budget_tokens":2048},"messages":[` +
		`{"role":"user","content":"hi"},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"foreign reasoning","signature":""},{"type":"text","text":"hello"}]},` +
		`{"role":"user","content":"prove that sqrt(2) is irrational"}]}`)
	var top map[string]json.RawMessage
	if err := json.Unmarshal(DropUnsigned(body), &top); err != nil {
		t.Fatal(err)
	}
	if _, ok := top["thinking"]; !ok {
		t.Errorf("no tool loop runs (the last user turn is text), yet the client's thinking was removed")
	}
}
