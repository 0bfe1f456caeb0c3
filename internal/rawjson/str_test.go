package rawjson

import (
	"encoding/json"
	"testing"
)

// stringCases are JSON strings (and values that are not strings) String
// must read as json.Unmarshal does.
var stringCases = []string{
	`""`, `"plain"`, `"wörld ✓"`, `"a\"b\\c\/d"`, `"\b\f\n\r\t"`, `"\u0000\u001f\u00e9\u20AC"`,
	`"\ud83d\ude00"`,        // a surrogate pair
	`"\ud83d"`, `"\ude00x"`, // lone surrogates
	`"\ud83d\u0041"`,                                // a high surrogate, then no low one
	`"\ud83dx\ude00"`,                               // a pair broken by a character
	`"\ud83d\ud83d\ude00"`,                          // two highs, then a low
	"\"\xff\xfe\"", "\"a\xc3\"", "\"\xed\xa0\x80\"", // invalid UTF-8, a surrogate in UTF-8
	"\"\xef\xbf\xbd\"", // U+FFFD itself
	`"{\"city\":\"Paris\"}"`,
	// Not JSON strings.
	`"\x"`, `"\u12"`, `"\u12g4"`, `"a`, `"`, `a"`, `5`, `null`, `""x"`, "\"\t\"", `"\"`, `"a"b"`,
}

// TestStringReadsAsUnmarshal: String and json.Unmarshal agree on every
// case, on the value and on whether it is a string.
func TestStringReadsAsUnmarshal(t *testing.T) {
	for _, c := range stringCases {
		checkString(t, []byte(c))
	}
}

func FuzzString(f *testing.F) {
	for _, c := range stringCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, v []byte) { checkString(t, v) })
}

func checkString(t *testing.T, v []byte) {
	t.Helper()
	if len(v) > 0 && (skipSpace(v, 0) > 0 || skipSpace(v[len(v)-1:], 0) > 0) {
		return // a value as Scan returns it has no white space around it
	}
	got, ok := String(v)
	var want string
	isString := len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &want) == nil
	if ok != isString || got != want {
		t.Fatalf("String(%q) = %q, %v; json.Unmarshal: %q, %v", v, got, ok, want, isString)
	}
}

// TestStringDoesNotCopyTwice: a plain string costs one allocation (the
// string), an escaped one too.
func TestStringAllocations(t *testing.T) {
	for _, c := range []string{`"plain text"`, `"line\nbreak \"q\""`} {
		v := []byte(c)
		if n := testing.AllocsPerRun(100, func() { String(v) }); n > 1 {
			t.Errorf("String(%s) allocates %.0f times, want 1", c, n)
		}
	}
}

func TestPathIndex(t *testing.T) {
	for _, c := range []struct {
		in   string
		i    int
		tail string
		ok   bool
	}{
		{"[2]", 2, "", true}, {".[2].content", 2, ".content", true}, {".2.content[0]", 2, ".content[0]", true},
		{"[12][3]", 12, "[3]", true}, {"[-1]", 0, "", false}, {"[+1]", 0, "", false}, {"[]", 0, "", false},
		{"[2", 0, "", false}, {".x", 0, "", false}, {"", 0, "", false}, {"[99999999999999999999]", 0, "", false},
	} {
		i, tail, ok := PathIndex(c.in)
		if i != c.i || tail != c.tail || ok != c.ok {
			t.Errorf("PathIndex(%q) = %d %q %v, want %d %q %v", c.in, i, tail, ok, c.i, c.tail, c.ok)
		}
	}
}
