package dispatch

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/detour-llm/detour/classify"
)

// FuzzVisibleControls (fuzz 69f): the message failWith keeps, an
// upstream's words on their way to the client's error, holds no C0 control
// (but the tab and the line feed), no C1 control nor bidi embedding, override or isolate raw, as written or as
// the client's JSON decoder reads it back; it is valid UTF-8 and JSON
// string content once encoded; text without them is kept byte for byte;
// escaping twice changes nothing; each escaped control is its \uXXXX text
// where it stood.
func FuzzVisibleControls(f *testing.F) {
	f.Add("Invalid key \u009b2J\u202eyek ruoy")
	f.Add("مفتاح غير صالح\u200f \u2067x\u2069")
	f.Add("plain words, café, 模型不存在")
	f.Add("\xc2\x9b\xe2\x80\xae\xff\\u202e")
	f.Fuzz(func(t *testing.T, msg string) {
		var o outcome
		o.failWith(classify.Verdict{Class: classify.Auth}, msg)
		got := o.message
		if !o.verdict.Failed {
			t.Fatal("not failed")
		}
		b, err := json.Marshal(got)
		if err != nil {
			t.Fatal(err)
		}
		var back string
		if err := json.Unmarshal(b, &back); err != nil || back != got && utf8.ValidString(got) {
			t.Fatalf("%q does not read back: %q %v", got, back, err)
		}
		for _, r := range back {
			if r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 {
				t.Fatalf("%q: %U raw in %q", msg, r, got)
			}
		}
		if strings.IndexFunc(msg, controlRune) < 0 && got != msg {
			t.Fatalf("%q changed to %q", msg, got)
		}
		if visibleControls(got) != got {
			t.Fatalf("%q escaped twice: %q", got, visibleControls(got))
		}
		// Reversed: each \uXXXX of a control back to it gives msg (where
		// msg is UTF-8 and held no such text of its own).
		if utf8.ValidString(msg) && !strings.Contains(msg, `\u`) {
			undo := got
			for r := rune(0); r <= 0x2069; r++ {
				if controlRune(r) {
					undo = strings.ReplaceAll(undo, `\u`+hex4(r), string(r))
				}
			}
			if undo != msg {
				t.Fatalf("%q escaped as %q", msg, got)
			}
		}
	})
}

func hex4(r rune) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[r>>12&0xf], digits[r>>8&0xf], digits[r>>4&0xf], digits[r&0xf]})
}
