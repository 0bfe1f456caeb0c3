package rawjson

import "testing"

func TestStringLen(t *testing.T) {
	for _, s := range []string{"", "plain", `q"b\`, "<>&", "\x01\n\t", "é漢字", "\u2028\u2029", "\xff\xfe", "a<b>c&d\x7f"} {
		if got, want := StringLen(s), len(AppendString(nil, s))-2; got != want {
			t.Errorf("%q: StringLen %d, AppendString wrote %d", s, got, want)
		}
	}
}
