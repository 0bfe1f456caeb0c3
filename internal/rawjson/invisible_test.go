package rawjson

import (
	"encoding/json"
	"testing"
)

// FuzzAppendVisible: whatever string json.Marshal wrote, AppendVisible's
// text decodes to the same string and holds no invisible character raw.
func FuzzAppendVisible(f *testing.F) {
	for _, s := range []string{"", "plain", "\u202Eabc\u202C", "\u009b31m", "tag\U000E0041", "é漢🙂\uFEFF", "\xff\u200B"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b, err := json.Marshal(s)
		if err != nil {
			t.Skip()
		}
		out := AppendVisible([]byte("x"), b)[1:]
		var got, want string
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("%q: %v", out, err)
		}
		_ = json.Unmarshal(b, &want)
		if got != want {
			t.Fatalf("decoded %q, want %q", got, want)
		}
		for _, r := range string(out) {
			if Invisible(r) {
				t.Fatalf("%U raw in %q", r, out)
			}
		}
	})
}
