package dispatch

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// scanCost skips the plain bytes of a string in a tight loop; what it
// counts is what the byte-by-byte scan it replaced counts, for any input
// (valid JSON or not: TranslationCost reads bodies the front checked, but
// must not depend on it).
func FuzzScanCost(f *testing.F) {
	for _, s := range []string{
		`{"model":"m","messages":[{"role":"user","content":"héllo \u2028 \"q\" \\"}]}`,
		`{"a":[0,0,0,{"b":"x\u2029y"}],"c":"` + "\xff\xfe" + `"}`,
		`"unterminated \`, `[[[["a","b\\"]]]]`, `{"k":"` + strings.Repeat("plain text ", 50) + `"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := scanCost(b), scanCostByByte(b); got != want {
			t.Fatalf("scanCost(%q) = %+v, the byte-by-byte scan %+v", b, got, want)
		}
	})
}

// scanCostByByte is scanCost as first written, one byte at a time: the
// reference FuzzScanCost holds it to.
func scanCostByByte(b []byte) costScan {
	var c costScan
	var arrays uint64 // bit d: the container at depth d (≤ 63) is a list
	in, depth, element := false, 0, false
	for i := 0; i < len(b); i++ {
		ch := b[i]
		if element && !in { // the first byte of a value in a shallow list
			switch ch {
			case ' ', '\t', '\n', '\r':
				continue
			case '{', '[', ']': // a structure, counted below; or the list's end
			default:
				c.structures++
			}
			element = false
		}
		switch {
		case ch >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				c.growing += size
			}
			i += size - 1
		case in && ch == '\\':
			i++
		case ch == '"':
			in = !in
		case in:
		case ch == '{' || ch == '[':
			c.structures++
			if depth++; depth <= 2 {
				c.elements++ // the first value in it
			}
			if depth > 0 && depth < 64 { // depth ≤ 0: a body that closes more than it opened (never one the front checked)
				arrays &^= 1 << depth
				if ch == '[' {
					arrays |= 1 << depth
					element = depth <= typedDepth
				}
			}
		case ch == '}' || ch == ']':
			depth--
		case ch == ':':
			if depth <= 3 {
				c.members++
			}
		case ch == ',':
			if depth <= 2 {
				c.elements++
			}
			element = depth <= typedDepth && depth > 0 && arrays&(1<<depth) != 0
		}
	}
	return c
}
