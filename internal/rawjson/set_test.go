package rawjson

import "testing"

// Set is what the translators ask of a member they refuse or translate: a
// value is there, and it is not null (whitespace around it allowed).
func TestSet(t *testing.T) {
	for in, want := range map[string]bool{"": false, " ": false, "null": false, " null\n": false,
		"0": true, `""`: true, "[]": true, "{}": true, "false": true, ` {"a":1} `: true} {
		if got := Set([]byte(in)); got != want {
			t.Errorf("Set(%q) = %v, want %v", in, got, want)
		}
	}
}
