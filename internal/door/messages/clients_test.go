package messages

import (
	"encoding/json"
	"testing"
)

// What Claude Code sends translates: a mid-conversation system message
// stays a system message in place, the billing-header system block and
// context_management are dropped, a device/session user_id is not
// forwarded, and a max_tokens above MaxOutputTokens is left to the
// upstream.
func TestTranslateClaudeCodeShapes(t *testing.T) {
	body := `{"model":"m","max_tokens":128000,"stream":true,
		"system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1.332; cc_entrypoint=sdk-cli;"},
			{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],
		"metadata":{"user_id":"{\"device_id\":\"d\",\"account_uuid\":\"\",\"session_id\":\"s\"}"},
		"context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},
		"messages":[{"role":"user","content":"hi"},
			{"role":"system","content":[{"type":"text","text":"# Environment","cache_control":{"type":"ephemeral"}}]},
			{"role":"assistant","content":"hello"}]}`
	tr, err := Translate([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		Messages []struct {
			Role    string `json:"role"`
			Content any    `json:"content"`
		} `json:"messages"`
		MaxCompletionTokens *int    `json:"max_completion_tokens"`
		User                *string `json:"user"`
	}
	if err := json.Unmarshal(tr.Body, &out); err != nil {
		t.Fatal(err)
	}
	want := [][2]string{{"system", "You are Claude Code."}, {"user", "hi"}, {"system", "# Environment"}, {"assistant", "hello"}}
	if len(out.Messages) != len(want) {
		t.Fatalf("messages %s", tr.Body)
	}
	for i, w := range want {
		if out.Messages[i].Role != w[0] || out.Messages[i].Content != w[1] {
			t.Errorf("message %d = %v, want %v", i, out.Messages[i], w)
		}
	}
	if out.MaxCompletionTokens != nil || out.User != nil {
		t.Errorf("max_completion_tokens %v, user %v: want both left out (%s)", out.MaxCompletionTokens, out.User, tr.Body)
	}
}

// An opaque user_id and a max_tokens within MaxOutputTokens are kept.
func TestTranslateKeepsOpaqueUserAndModestLimit(t *testing.T) {
	tr, err := Translate([]byte(`{"model":"m","max_tokens":16384,"metadata":{"user_id":"u-123"},"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		MaxCompletionTokens int    `json:"max_completion_tokens"`
		User                string `json:"user"`
	}
	if json.Unmarshal(tr.Body, &out) != nil || out.MaxCompletionTokens != 16384 || out.User != "u-123" {
		t.Errorf("got %s", tr.Body)
	}
}

// A system message whose content is not text is named at its own place,
// as a block type Anthropic judges (review 41d: a system message also
// holds tool changes, and may hold more block types later).
func TestTranslateSystemMessageError(t *testing.T) {
	_, err := Translate([]byte(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"},{"role":"system","content":[{"type":"image"}]}]}`))
	e, ok := err.(*Error)
	if !ok || e.Field != "messages.1.content.0.type" || !e.Unsupported {
		t.Errorf("err = %v, want one naming messages.1.content.0.type, for an Anthropic target to judge", err)
	}
}
