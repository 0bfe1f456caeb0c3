package responses

import (
	"encoding/json"
	"testing"
)

// stringOf reads any valid JSON value as json.Unmarshal reads it into a
// string: the same string, and ok exactly when Unmarshal succeeds.
func FuzzStringOf(f *testing.F) {
	for _, s := range []string{`"a"`, ` "tab\there \u00e9 \ud83d\ude00" `, `null`, ` null `, `[{"type":"input_text","text":"x"}]`, `{}`, `5`, `true`, `"\ud800"`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		if !json.Valid(raw) {
			return // the front's strict scan refused the body
		}
		var want string
		wantOK := json.Unmarshal(raw, &want) == nil
		got, ok := stringOf(raw)
		if ok != wantOK || got != want {
			t.Fatalf("stringOf(%q) = %q, %v; json.Unmarshal: %q, %v", raw, got, ok, want, wantOK)
		}
	})
}
