package messages

import (
	"encoding/json"
	"testing"
)

func TestDropUnsigned(t *testing.T) {
	in := `{"model":"claude","max_tokens":64,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[
{"role":"user","content":"hi"},
{"role":"assistant","content":[{"type":"thinking","thinking":"from deepseek","signature":""},{"type":"text","text":"Hello!"}]},
{"role":"user","content":"and?"},
{"role":"assistant","content":[{"type":"thinking","thinking":"only reasoning"}]},
{"role":"user","content":"go on"},
{"role":"assistant","content":[{"type":"thinking","thinking":"mine","signature":"EqQBCkYIBx"},{"type":"text","text":"ok"}]},
{"role":"user","content":"thanks"}]}`
	var got struct {
		Thinking json.RawMessage `json:"thinking"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal(DropUnsigned([]byte(in)), &got); err != nil {
		t.Fatal(err)
	}
	want := []string{`"hi"`, `[{"type":"text","text":"Hello!"}]`, `"and?"`, `"go on"`,
		`[{"type":"thinking","thinking":"mine","signature":"EqQBCkYIBx"},{"type":"text","text":"ok"}]`, `"thanks"`}
	if len(got.Messages) != len(want) {
		t.Fatalf("%d messages, want %d: %+v", len(got.Messages), len(want), got.Messages)
	}
	for i, m := range got.Messages {
		if string(m.Content) != want[i] {
			t.Errorf("message %d: %s, want %s", i, m.Content, want[i])
		}
	}
	if string(got.Thinking) != `{"type":"enabled","budget_tokens":1024}` {
		t.Errorf("the request's own thinking setting changed: %s", got.Thinking)
	}
	// Nothing to drop: the very bytes the client sent.
	signed := `{"model":"claude", "messages":[{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":"s"}]}]}`
	if out := DropUnsigned([]byte(signed)); string(out) != signed {
		t.Errorf("rewrote a body with nothing to drop: %s", out)
	}
}
