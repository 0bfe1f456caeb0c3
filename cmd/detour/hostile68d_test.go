package main

import (
	"strings"
	"testing"
)

// hostile 68d: `detour classify --suggest --jsonl` groups answer lines by
// their provider and wrote it as it came, in the group's comment and in
// the rule to paste ("# 1× provider p\x1b[2J…"): an answer line's provider
// with a terminal's escape sequence (an answer collected from a relay's
// log, a capture anyone wrote) drove the operator's terminal. The verdicts
// and the sample were escaped; the name was not. A provider no
// configuration can name (a blank, a control or an invisible character) is
// now refused as the line's error, which writes it escaped.
func TestHostile68dSuggestWritesNoAnswerLinesControls(t *testing.T) {
	line := `{"status":400,"dialect":"openai","provider":"p\u001b]8;;https://evil.example/\u001b\\\u202eclick","body":"{\"error\":{\"message\":\"The frobnicator declined\"}}"}` + "\n"
	for _, args := range [][]string{{"--suggest", "--jsonl"}, {"--jsonl"}} {
		_, out, errs := runC(t, line, args...)
		for _, bad := range []string{"\x1b", "\u202e"} {
			if strings.Contains(out+errs, bad) {
				t.Errorf("detour classify %s writes %q raw:\n%s%s", strings.Join(args, " "), bad, out, errs)
			}
		}
	}
}
