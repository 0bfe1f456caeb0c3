package server

import (
	"unicode"
	"unicode/utf8"
)

// The lexical half of the strict scan (strict.go): literals, numbers and
// strings checked as RFC 8259 has them, and member names decoded and
// case-folded exactly as encoding/json decodes and matches them.

func (s *scanner) literal(i int, lit string) int {
	if len(s.b)-i >= len(lit) && string(s.b[i:i+len(lit)]) == lit {
		return i + len(lit)
	}
	s.syntax(i, "invalid literal")
	return -1
}

func (s *scanner) number(i int) int {
	b, start := s.b, i
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i++; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	default:
		s.syntax(start, "invalid number")
		return -1
	}
	if i < len(b) && b[i] == '.' {
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.syntax(start, "invalid number")
			return -1
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			s.syntax(start, "invalid number")
			return -1
		}
		for ; i < len(b) && b[i] >= '0' && b[i] <= '9'; i++ {
		}
	}
	return i
}

// plain marks the bytes a string may hold as they are: not a quote, a
// backslash, a control character, or a byte of a multi-byte sequence.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// str checks the string at b[i] (the opening quote) and returns the index
// just past it; raw is false when the string holds an escape or a
// non-ASCII byte (its text is not its bytes as they stand, or might not be).
func (s *scanner) str(i int) (end int, raw bool) {
	b := s.b
	raw = true
	for j := i + 1; ; {
		for j+8 <= len(b) && plain[b[j]] && plain[b[j+1]] && plain[b[j+2]] && plain[b[j+3]] &&
			plain[b[j+4]] && plain[b[j+5]] && plain[b[j+6]] && plain[b[j+7]] {
			j += 8
		}
		for j < len(b) && plain[b[j]] {
			j++
		}
		if j >= len(b) {
			s.syntax(j, "")
			return -1, false
		}
		switch c := b[j]; {
		case c == '"':
			return j + 1, raw
		case c == '\\':
			raw = false
			if j+1 >= len(b) {
				s.syntax(j+1, "")
				return -1, false
			}
			switch b[j+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				j += 2
			case 'u':
				if j+6 > len(b) || !hex4(b[j+2:j+6]) {
					s.syntax(j, "invalid \\u escape")
					return -1, false
				}
				j += 6
			default:
				s.syntax(j, "invalid escape")
				return -1, false
			}
		case c < 0x20:
			s.syntax(j, "control character in a string")
			return -1, false
		default: // a byte >= 0x80
			raw = false
			j++
		}
	}
}

func hex4(h []byte) bool {
	for _, c := range h {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// appendFold appends name folded as encoding/json matches names: ASCII
// letters by case, other runes by Unicode simple folding (so "ſ" is "s").
func appendFold(out, name []byte) []byte {
	for i := 0; i < len(name); {
		c := name[i]
		if c < utf8.RuneSelf {
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			out = append(out, c)
			i++
			continue
		}
		r, n := utf8.DecodeRune(name[i:])
		out = utf8.AppendRune(out, smallestFold(r))
		i += n
	}
	return out
}

// smallestFold is the smallest rune that folds to r.
func smallestFold(r rune) rune {
	for {
		f := unicode.SimpleFold(r)
		if f <= r {
			return f
		}
		r = f
	}
}

// appendUnquoted appends the text of a JSON string's contents q (already
// checked) as encoding/json decodes it: escapes resolved, lone surrogates
// and invalid UTF-8 as U+FFFD.
func appendUnquoted(out, q []byte) []byte {
	for i := 0; i < len(q); {
		c := q[i]
		switch {
		case c == '\\':
			switch e := q[i+1]; e {
			case 'u':
				r := rune(hexVal(q[i+2 : i+6]))
				i += 6
				if utf16IsSurrogate(r) {
					if r < 0xdc00 && i+6 <= len(q) && q[i] == '\\' && q[i+1] == 'u' {
						if r2 := rune(hexVal(q[i+2 : i+6])); r2 >= 0xdc00 && r2 < 0xe000 {
							r = (r-0xd800)<<10 + (r2 - 0xdc00) + 0x10000
							i += 6
							out = utf8.AppendRune(out, r)
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			default: // '"', '\\', '/'
				out = append(out, e)
			}
			i += 2
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, n := utf8.DecodeRune(q[i:])
			out = utf8.AppendRune(out, r) // RuneError for an invalid byte
			i += n
		}
	}
	return out
}

func utf16IsSurrogate(r rune) bool { return r >= 0xd800 && r < 0xe000 }

func hexVal(h []byte) int {
	v := 0
	for _, c := range h {
		v <<= 4
		switch {
		case c >= '0' && c <= '9':
			v |= int(c - '0')
		case c >= 'a' && c <= 'f':
			v |= int(c-'a') + 10
		default:
			v |= int(c-'A') + 10
		}
	}
	return v
}
