package messages

import (
	"testing"
)

// The message_start event is written by hand: it must be what json.Marshal
// of the Message writes, escapes, invalid UTF-8 and all.
func TestMessageStartAsMarshalled(t *testing.T) {
	for _, c := range []struct {
		id, model string
		input     int
	}{
		{"msg_1", "claude-sonnet-4-5", 0},
		{"chatcmpl-<x>&\"y\"", "gpt\u2028<b>\\n", 123456},
		{"id\x00\x1f\xff", "mod\u00e9le \U0001F600\u2029", -1},
	} {
		e := &Encoder{InputTokens: c.input}
		got := string(e.start(nil, c.id, c.model))
		want := string(frame(nil, "message_start", struct {
			Type    string  `json:"type"`
			Message Message `json:"message"`
		}{"message_start", Message{ID: c.id, Type: "message", Role: "assistant", Model: c.model,
			Content: []Block{}, Usage: Usage{InputTokens: c.input}}}))
		if got != want {
			t.Errorf("%q %q:\n got %s\nwant %s", c.id, c.model, got, want)
		}
	}
}
