package decision

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// TestRecordWritesInvisibleCharactersEscaped: an upstream's message or a
// client's model name lands in the decision log. Written raw, a right-to-left
// override (U+202E) reorders the rest of the line for an operator reading it
// with cat, less or jq in a terminal, a C1 control (U+009B, CSI) can act on
// the terminal, and Unicode tag characters (U+E0000–U+E007F) hide text
// (hostile 56: decisions.jsonl kept U+202E raw). They are written as JSON
// escapes now: the line decodes to the same record, and shows what is there.
func TestRecordWritesInvisibleCharactersEscaped(t *testing.T) {
	hostile := "quota \u202Edetaeh\u202C ok\u009b31m \u200Bzero\uFEFF tag\U000E0041\U000E007F é 漢字 🙂"
	var out bytes.Buffer
	w := NewWriter(&out, nil, Options{})
	want := &Decision{ID: "x", Time: time.Unix(0, 0).UTC(), Route: "r\u202E", Outcome: OutcomeError, Status: 429,
		Attempts: []Attempt{{Target: "t", Provider: "p", Evidence: hostile, Action: ActionStop}}, Transitions: []Transition{}}
	w.Write(want)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	line := out.String()
	for _, raw := range []string{"\u202E", "\u202C", "\u009b", "\u200B", "\uFEFF", "\U000E0041"} {
		if strings.Contains(line, raw) {
			t.Errorf("the line holds %U raw: %q", []rune(raw)[0], line)
		}
	}
	for _, esc := range []string{`\u202e`, `\u009b`, `\udb40\udc41`, "é 漢字 🙂"} {
		if !strings.Contains(line, esc) {
			t.Errorf("the line lacks %s: %s", esc, line)
		}
	}
	var got Decision
	if err := json.Unmarshal([]byte(line), &got); err != nil {
		t.Fatal(err)
	}
	if got.Attempts[0].Evidence != hostile || got.Route != want.Route {
		t.Errorf("decoded %q %q, want %q %q", got.Attempts[0].Evidence, got.Route, hostile, want.Route)
	}
}
