package messages

import (
	"strings"
	"testing"
)

// message_start is written by hand (Encoder.start): it must be byte for
// byte what json.Marshal of the Message writes, for any id, model and
// input_tokens a client or an upstream can put there (seeds by review 59:
// escapes, invalid UTF-8, U+2028, a long string).
func FuzzMessageStart(f *testing.F) {
	for _, s := range []string{"", "msg_1", "<>&", "\u2028\u2029", "\x00\x01\x1f\x7f", "\b\f\n\r\t\"\\",
		"\xff\xfe", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf", "é\xe2\x80", "\U0001F600", strings.Repeat("<a\u2028\xff", 5000),
		"\ufffd", "\u007f\u0080\u009f", "\ufeff"} {
		f.Add(s, "claude-"+s, 7)
		f.Add("id", s, -1<<62)
	}
	f.Fuzz(func(t *testing.T, id, model string, input int) {
		e := &Encoder{InputTokens: input, Model: "fallback"}
		got := string(e.start([]byte("prefix"), id, model))
		if id == "" {
			id = e.id // a fresh NewID, the same for both
		}
		if model == "" {
			model = "fallback"
		}
		want := "prefix" + string(frame(nil, "message_start", struct {
			Type    string  `json:"type"`
			Message Message `json:"message"`
		}{"message_start", Message{ID: id, Type: "message", Role: "assistant", Model: model,
			Content: []Block{}, Usage: Usage{InputTokens: input}}}))
		if got != want {
			t.Errorf("%q %q %d:\n got %s\nwant %s", id, model, input, got, want)
		}
	})
}
