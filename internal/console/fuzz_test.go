package console

import (
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/decision"
)

// Whatever an upstream writes, the suggested expression compiles and
// matches the body that carried the message, however its JSON escapes it.
func FuzzMatchFor(f *testing.F) {
	for _, s := range []string{"Request 7781 rejected for 'gpt-4o'", `a "b" <c> & d/e\f`, "line\nbreak\u2028sep", "账户余额不足 (code 1008)", "", "{}[]().*+?^$|"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, msg string) {
		if !utf8.ValidString(msg) || strings.ContainsRune(msg, utf8.RuneError) || len(msg) > 4*decision.MaxMessage {
			return // invalid bytes do not survive JSON as they were; records hold 300 bytes
		}
		match := MatchFor(msg)
		if match == "" {
			return
		}
		re, err := regexp.Compile(match)
		if err != nil {
			t.Fatalf("MatchFor(%q) = %q does not compile: %v", msg, match, err)
		}
		for _, esc := range []bool{false, true} {
			b := body(msg, esc)
			if !re.Match(b) {
				t.Fatalf("MatchFor(%q) = %q does not match its body %s", msg, match, b)
			}
		}
		if g := Normalise(msg); strings.ContainsAny(g, "\n\t") {
			t.Fatalf("Normalise(%q) = %q keeps white space runs", msg, g)
		}
	})
}
