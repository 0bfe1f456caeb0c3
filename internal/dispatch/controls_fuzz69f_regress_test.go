package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
)

// Fuzz 69f: hostile 68d wrote C1 controls and bidi overrides as text, but
// an upstream's message decoded from its JSON ("\u001b[2J") kept ESC, the
// escape every terminal obeys (7-bit CSI "ESC [", an OSC 8 hyperlink
// "ESC ]8;;…" that shows one address and opens another), and a carriage
// return or a backspace that draws over the words before it: the client's
// error carried them to a coding agent printing it. They are written as
// \uXXXX text; a tab and a line break stay.
func TestFuzz69fC0ControlsReachNoTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"\x1b[2J\x1b]8;;http://evil.example\x07docs\x1b]8;;\x07": `\u001b[2J\u001b]8;;http://evil.example\u0007docs\u001b]8;;\u0007`,
		"invalid key\rall good\x08\x7f":                          `invalid key\u000dall good\u0008\u007f`,
		"line one\n\tline two":                                   "line one\n\tline two",
	} {
		var o outcome
		o.failWith(classify.Verdict{Class: classify.Auth}, in)
		if o.message != want {
			t.Errorf("%q: message %q, want %q", in, o.message, want)
		}
	}
	// As the classifier reads an upstream's JSON message.
	msg := classify.Message([]byte(`{"error":{"message":"\u001b[31mbad key"}}`))
	if got := visibleControls(msg); got != `\u001b[31mbad key` {
		t.Errorf("%q: %q", msg, got)
	}
}
