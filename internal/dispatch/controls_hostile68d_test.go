package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
)

// TestHostile68dUpstreamControlsReachNoTerminal: an upstream's message
// reaches the client's error as its words; a C1 control (U+009B, a
// terminal's CSI) or a bidi override in it would be obeyed by a coding
// agent printing its error. They are written as \uXXXX text; a
// right-to-left language's marks and other text stay as they came.
func TestHostile68dUpstreamControlsReachNoTerminal(t *testing.T) {
	for in, want := range map[string]string{
		"Invalid key \u009b2J\u202eyek ruoy": `Invalid key \u009b2J\u202eyek ruoy`,
		"مفتاح غير صالح\u200f \u2067x\u2069": "مفتاح غير صالح\u200f \\u2067x\\u2069",
		"plain words, café, 模型不存在":           "plain words, café, 模型不存在",
	} {
		var o outcome
		o.failWith(classify.Verdict{Class: classify.Auth}, in)
		if o.message != want {
			t.Errorf("%q: message %q, want %q", in, o.message, want)
		}
	}
}
