package messages

import (
	"encoding/json"
	"strings"
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

// A tool loop answered elsewhere with reasoning, then back at Claude with
// thinking on: the last assistant turn loses the thinking it opened with,
// and Anthropic then wants thinking off (review 32i). Markup is written as
// it came, not re-escaped.
func TestDropUnsignedToolLoop(t *testing.T) {
	in := `{"model":"claude","max_tokens":2048,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[
{"role":"user","content":"weather <b>&</b> time?"},
{"role":"assistant","content":[{"type":"thinking","thinking":"call the tool","signature":""},{"type":"tool_use","id":"call_00_abc","name":"get_weather","input":{}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_00_abc","content":"sunny"}]}]}`
	out := DropUnsigned([]byte(in))
	var got map[string]json.RawMessage
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	if _, on := got["thinking"]; on {
		t.Errorf("thinking left on after the last assistant turn lost its opening thinking: %s", out)
	}
	if !strings.Contains(string(out), `weather <b>&</b> time?`) {
		t.Errorf("markup re-escaped: %s", out)
	}
	// Claude's own signed turn last: thinking stays on.
	signed := strings.Replace(in, `{"type":"thinking","thinking":"call the tool","signature":""},`, `{"type":"thinking","thinking":"mine","signature":"EqQB"},`, 1)
	signed = strings.Replace(signed, `{"role":"user","content":"weather <b>&</b> time?"},`, `{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"thinking","thinking":"x","signature":""},{"type":"text","text":"hello"}]},{"role":"user","content":"weather?"},`, 1)
	if err := json.Unmarshal(DropUnsigned([]byte(signed)), &got); err != nil {
		t.Fatal(err)
	}
	if _, on := got["thinking"]; !on {
		t.Errorf("thinking turned off though the last assistant turn is Claude's own, signed")
	}
}

// An assistant turn's text block of blanks alone (another vendor's "\n\n"
// before a tool call, passed on by this door) is dropped before Claude,
// which refuses it in history; a user's, and text with a word in it, stay.
func TestDropUnsignedBlankAssistantText(t *testing.T) {
	in := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":" "}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"\n\n"},{"type":"tool_use","id":"t1","name":"f","input":{}}]},` +
		`{"role":"assistant","content":[{"type":"text","text":""}]},` +
		`{"role":"assistant","content":[{"type":"text","text":"\n ok"}]}]}`
	if !MayHoldUnsigned([]byte(in)) {
		t.Fatal("the scan does not see the blank text")
	}
	var got struct {
		Messages []struct {
			Role    string
			Content []struct{ Type, Text string }
		}
	}
	if err := json.Unmarshal(DropUnsigned([]byte(in)), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Messages) != 3 || len(got.Messages[0].Content) != 1 || len(got.Messages[1].Content) != 1 ||
		got.Messages[1].Content[0].Type != "tool_use" || got.Messages[2].Content[0].Text != "\n ok" {
		t.Errorf("got %+v", got)
	}
	if plain := `{"messages":[{"role":"assistant","content":[{"type":"text","text":"hi \n"}]}]}`; MayHoldUnsigned([]byte(plain)) {
		t.Errorf("the scan flags text with a word in it")
	}
}
