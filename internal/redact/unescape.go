package redact

import (
	"bytes"
	"unicode/utf16"
	"unicode/utf8"
)

// unescapeJSON returns b with every JSON string escape decoded ("\u0050"
// → "P", "\n" → newline, a surrogate pair → its character, a lone
// surrogate → U+FFFD, as encoding/json reads them), or nil when b holds no
// backslash. It reads b as bytes, not as a document: what is not an escape
// stays as it is. An upstream reads the client's strings decoded, so its
// echo of them is compared with this form too (Scrubber.ForClient).
func unescapeJSON(b []byte) []byte {
	if bytes.IndexByte(b, '\\') < 0 {
		return nil
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		c := b[i]
		if c != '\\' || i+1 >= len(b) {
			out = append(out, c)
			continue
		}
		if d := shortEscape[b[i+1]]; d != 0 {
			out = append(out, d)
			i++
			continue
		}
		r, n := hex4(b[i+2:])
		if b[i+1] != 'u' || n == 0 {
			out = append(out, c) // not an escape: the backslash as it is
			continue
		}
		i += 1 + n
		if utf16.IsSurrogate(r) {
			r2 := utf8.RuneError
			if i+2 < len(b) && b[i+1] == '\\' && b[i+2] == 'u' {
				if lo, m := hex4(b[i+3:]); m > 0 {
					if d := utf16.DecodeRune(r, lo); d != utf8.RuneError {
						r2 = d
						i += 2 + m
					}
				}
			}
			r = r2
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}

// shortEscape maps the byte after a backslash to what it stands for (0:
// not a one-byte escape).
var shortEscape = [256]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}

// hex4 reads four hex digits at the start of b: the rune and 4, or 0, 0.
func hex4(b []byte) (rune, int) {
	if len(b) < 4 {
		return 0, 0
	}
	var r rune
	for _, c := range b[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, 0
		}
		r = r<<4 | rune(c)
	}
	return r, 4
}
