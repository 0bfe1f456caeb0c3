package classify

import (
	"bytes"
	"testing"
)

// strBefore is scanner.str as it was before it kept the next quote across
// escapes: both searches again after every escape.
func strBefore(s *scanner) (raw []byte, ok bool) {
	start := s.i + 1
	j := start
	for j < len(s.b) {
		rest := s.b[j:]
		q := bytes.IndexByte(rest, '"')
		end := q
		if q < 0 {
			end = len(rest)
		}
		bs := bytes.IndexByte(rest[:end], '\\')
		if bs >= 0 {
			j += bs + 2
			continue
		}
		if q < 0 {
			break
		}
		s.i = j + q + 1
		return s.b[start : j+q], true
	}
	s.i = len(s.b)
	return s.b[start:], false
}

// sameStr holds scanner.str to strBefore from every quote of b.
func sameStr(t *testing.T, b []byte) {
	t.Helper()
	for i := range b {
		if b[i] != '"' {
			continue
		}
		got, want := &scanner{b: b, i: i}, &scanner{b: b, i: i}
		graw, gok := got.str()
		wraw, wok := strBefore(want)
		if !bytes.Equal(graw, wraw) || gok != wok || got.i != want.i {
			t.Fatalf("str(%q) from %d = %q %v (next %d), was %q %v (next %d)", b, i, graw, gok, got.i, wraw, wok, want.i)
		}
	}
}

var strCases = []string{`""`, `"a"`, `"a\"b"`, `"a\\"b"`, `"\\\\"`, `"\"`, `"\\\"`, `"abc`, `"ab\`, `"a\nb\tc\"d" "e"`,
	`{"k":"v\\","w":"\"x\""}`, `"\u0022"`, `"\`, `"x\"\"\"\"y"`}

func TestScannerStrAsBefore(t *testing.T) {
	for _, c := range strCases {
		sameStr(t, []byte(c))
	}
}

func FuzzScannerStr(f *testing.F) {
	for _, c := range strCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) { sameStr(t, b) })
}
