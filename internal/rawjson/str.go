package rawjson

import (
	"bytes"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// String decodes the JSON string v (quotes included, as Member and Scan
// return it) exactly as json.Unmarshal decodes it into a string, and
// reports false when v is not a well-formed JSON string. Like
// encoding/json it turns each byte of invalid UTF-8, and each \u escape of
// a surrogate that does not pair, into U+FFFD. It decodes in one flat
// loop, no reflection: the doors read every delta of a stream with it on
// the handler's goroutine (docs/benchmarks.md, "Round 6: the doors").
func String(v []byte) (string, bool) {
	if len(v) < 2 || v[0] != '"' || v[len(v)-1] != '"' {
		return "", false
	}
	in := v[1 : len(v)-1]
	if bytes.IndexByte(in, '\\') < 0 && utf8.Valid(in) {
		for _, c := range in {
			if c < ' ' || c == '"' {
				return "", false
			}
		}
		return string(in), true
	}
	return unquote(in)
}

// unquote decodes the inside of a JSON string that has escapes or invalid
// UTF-8.
func unquote(in []byte) (string, bool) {
	var b strings.Builder
	b.Grow(len(in))
	for i := 0; i < len(in); {
		c := in[i]
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRune(in[i:])
			if r == utf8.RuneError && n == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(in[i : i+n])
			}
			i += n
			continue
		}
		if c < ' ' || c == '"' {
			return "", false
		}
		if c != '\\' {
			// A run of plain bytes is written at once.
			j := i + 1
			for j < len(in) && in[j] >= ' ' && in[j] < utf8.RuneSelf && in[j] != '"' && in[j] != '\\' {
				j++
			}
			b.Write(in[i:j])
			i = j
			continue
		}
		if i+1 >= len(in) {
			return "", false
		}
		if e := unescape(in[i+1]); e != 0 {
			b.WriteByte(e)
			i += 2
			continue
		}
		if in[i+1] != 'u' {
			return "", false
		}
		r := hexRune(in[i:])
		if r < 0 {
			return "", false
		}
		i += 6
		if utf16.IsSurrogate(r) {
			// A pair is two escapes; anything else is one replacement
			// character, and what follows is read on its own.
			if d := utf16.DecodeRune(r, hexRune(in[i:])); d != utf8.RuneError {
				b.WriteRune(d)
				i += 6
				continue
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
	}
	return b.String(), true
}

// unescape is the byte the escape \e stands for, 0 for \u or an escape
// JSON does not have.
func unescape(e byte) byte {
	switch e {
	case '"', '\\', '/':
		return e
	case 'b':
		return '\b'
	case 'f':
		return '\f'
	case 'n':
		return '\n'
	case 'r':
		return '\r'
	case 't':
		return '\t'
	}
	return 0
}

// hexRune reads the escape \uXXXX at the start of s; -1 when s does not
// start with one.
func hexRune(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c -= 'a' - 10
		case 'A' <= c && c <= 'F':
			c -= 'A' - 10
		default:
			return -1
		}
		r = r<<4 | rune(c)
	}
	return r
}

// EscapedAt reports whether b[i] follows an odd run of backslashes: a
// quote there is inside a JSON string, not its end.
func EscapedAt(b []byte, i int) bool {
	n := 0
	for i-n > 0 && b[i-n-1] == '\\' {
		n++
	}
	return n%2 == 1
}
