package classify

import (
	"bytes"
	"testing"
)

// FuzzFoldSpaces: folding in place gives what folding into a new slice
// gives, and what folding byte by byte gives.
func FuzzFoldSpaces(f *testing.F) {
	f.Add([]byte("a  b   c    "))
	f.Add([]byte("   "))
	f.Fuzz(func(t *testing.T, b []byte) {
		var want []byte
		for i, c := range b {
			if c != ' ' || i == 0 || b[i-1] != ' ' {
				want = append(want, c)
			}
		}
		in := append([]byte(nil), b...)
		if got := foldSpaces(in[:0], in); !bytes.Equal(got, want) {
			t.Fatalf("in place: %q, want %q", got, want)
		}
		if got := foldSpaces(nil, b); !bytes.Equal(got, want) {
			t.Fatalf("%q, want %q", got, want)
		}
	})
}
