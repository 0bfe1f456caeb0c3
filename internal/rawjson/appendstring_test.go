package rawjson

import (
	"encoding/json"
	"testing"
)

// The doors' stream events and the decision records write strings with
// AppendString where they once called json.Marshal: a client reads the
// same bytes either way.
func TestAppendStringIsMarshal(t *testing.T) {
	for _, s := range appendStringSeeds {
		checkAppendString(t, s)
	}
}

func FuzzAppendString(f *testing.F) {
	for _, s := range appendStringSeeds {
		f.Add(s)
	}
	f.Fuzz(checkAppendString)
}

var appendStringSeeds = []string{
	"", "plain", `quote " backslash \ slash /`, "<b>&amp;</b>", "tab\tnl\nret\rff\fbs\b",
	"\x00\x01\x1f\x7f", "wörld 余额不足 🙂", "\u2028\u2029", "bad \xff utf8 \xc3", "\xed\xa0\x80 surrogate",
}

func checkAppendString(t *testing.T, s string) {
	want, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if got := AppendString([]byte("x"), s); string(got) != "x"+string(want) {
		t.Errorf("AppendString(%q) = %s, json.Marshal %s", s, got[1:], want)
	}
}
