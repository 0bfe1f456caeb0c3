package decision

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestUpstreamMessage(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"Invalid value: 'You exceeded your current quota'. Supported values are: 'system' and 'user'.",
			"Invalid value: '…'. Supported values are: '…' and '…'."},
		{`model "gpt-x" not found`, `model "…" not found`},
		{"use `tool_choice` here", "use `…` here"},
		{"don't retry; it's 'bad input' we can't take", "don't retry; it's '…' we can't take"},
		{"'it's mine' she said", "'…' she said"},
		{"an open 'quote to the end", "an open '…"},
		{"  blanks \n\t folded  ", "blanks folded"},
		{"账户已欠费，请充值 'x'", "账户已欠费，请充值 '…'"},
		{"", ""},
		// A double quote escaped with a backslash closes nothing: Go's %q
		// and JSON write a client's value so (review 64i).
		{`unknown tool_call_id "a\" Jonathan\a" at 2`, `unknown tool_call_id "…" at 2`},
		{`got "x\\" then "y"`, `got "…" then "…"`},
	} {
		if got := UpstreamMessage(c.in); got != c.want {
			t.Errorf("UpstreamMessage(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	long := UpstreamMessage(strings.Repeat("é", 400))
	if len(long) > MaxMessage || !utf8.ValidString(long) || len(long) < MaxMessage-1 {
		t.Errorf("cut: %d bytes, valid %v", len(long), utf8.ValidString(long))
	}
}
