package classify

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// Reading the members of a JSON text without decoding it into values, for
// the reprint checks (reprint.go): every member at any depth with its name
// and its value as written, strings compared with their escapes decoded,
// numbers by value. Nothing allocated on the common path.

// stringEnd returns the index just past the JSON string opening at b[i],
// or -1 when it does not close.
func stringEnd(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipWS returns the index of the first byte at or after i that is not
// JSON whitespace.
func skipWS(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// decodeShort appends the JSON string content s, escapes decoded, to dst
// (a code's length at most), up to its first ':' where colon is set (an
// AWS error type, as lookupCode cuts it); ok is false when it does not fit.
func decodeShort(dst, s []byte, colon bool) ([]byte, bool) {
	for i := 0; i < len(s); {
		r, w := rune(s[i]), 1
		if s[i] == '\\' {
			r, w = unescapeAt(s, i)
		}
		if colon && r == ':' {
			break
		}
		if len(dst)+utf8.RuneLen(r) > cap(dst) {
			return nil, false
		}
		if w == 1 && s[i] >= utf8.RuneSelf {
			dst = append(dst, s[i])
		} else {
			dst = utf8.AppendRune(dst, r)
		}
		i += w
	}
	return dst, true
}

// forMembers calls fn with every member of the JSON text b, at any depth,
// in order: its name (a string's content, escapes as written) and its
// value, a string's content (str set) or the raw text from its first byte
// (a number or a literal whole; '{' or '[' and all that follows). It stops
// when fn returns false. Text inside strings is never read as members.
func forMembers(b []byte, fn func(k, v []byte, str bool) bool) { forMembersIn(b, false, fn) }

func forMembersIn(b []byte, inArgs bool, fn func(k, v []byte, str bool) bool) {
	for i := 0; i < len(b); i++ {
		if b[i] != '"' {
			continue
		}
		ke := stringEnd(b, i)
		if ke < 0 {
			return
		}
		key := b[i+1 : ke-1]
		i = ke - 1
		j := skipWS(b, ke)
		if j >= len(b) || b[j] != ':' {
			continue
		}
		j = skipWS(b, j+1)
		if j >= len(b) {
			return
		}
		v, str := b[j:], b[j] == '"'
		switch {
		case str:
			ve := stringEnd(b, j)
			if ve < 0 {
				return
			}
			v = b[j+1 : ve-1]
			i = ve - 1
		case b[j] != '{' && b[j] != '[':
			e := j
			for e < len(b) && b[e] != ',' && b[e] != '}' && b[e] != ']' && b[e] != ' ' && b[e] != '\n' && b[e] != '\t' && b[e] != '\r' {
				e++
			}
			if e == j {
				continue // no value: not JSON
			}
			v = b[j:e]
			i = e - 1
		}
		if !fn(key, v, str) {
			return
		}
		if str && !inArgs && jsonStringEq(key, []byte("arguments")) {
			// A tool call's arguments: JSON in a string on the Chat
			// Completions door, which Detour sends on as an object
			// (chat.Arguments) and an upstream may print back as one.
			if !argumentMembers(v, fn) {
				return
			}
		}
	}
}

// argumentMembers calls forMembers over the JSON object a tool call's
// arguments string holds, decoded (one level: arguments inside are not
// read again); false when fn stopped it.
func argumentMembers(v []byte, fn func(k, v []byte, str bool) bool) bool {
	buf := textBufs.Get()
	defer textBufs.Put(buf)
	d, ok := unescapeString(buf[:0], v)
	if !ok || !bytes.HasPrefix(bytes.TrimLeft(d, " \t\r\n"), []byte("{")) {
		return true
	}
	going := true
	forMembersIn(d, true, func(k, v []byte, str bool) bool {
		going = fn(k, v, str)
		return going
	})
	return going
}

// jsonStringEq reports whether two JSON strings' contents are the same
// text, escapes decoded, ASCII case folded.
func jsonStringEq(a, b []byte) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ra, wa := jsonRuneAt(a, i)
		rb, wb := jsonRuneAt(b, j)
		if ra != rb && !(ra < utf8.RuneSelf && rb < utf8.RuneSelf && lowerTab[ra] == lowerTab[rb]) {
			return false
		}
		i, j = i+wa, j+wb
	}
	return i == len(a) && j == len(b)
}

// jsonRuneAt decodes the rune at s[i] of a JSON string's content.
func jsonRuneAt(s []byte, i int) (rune, int) {
	if s[i] == '\\' {
		return unescapeAt(s, i)
	}
	if s[i] < utf8.RuneSelf {
		return rune(s[i]), 1
	}
	return utf8.DecodeRune(s[i:])
}

// numberEq reports whether two JSON numbers have the same value, however
// written (1, 1.0, 1e0, 10e-1): both read as their significant digits and
// the power of ten after them.
func numberEq(a, b []byte) bool {
	var da, db [24]byte
	ma, ea, oka := decimalOf(da[:0], a)
	mb, eb, okb := decimalOf(db[:0], b)
	return oka && okb && ea == eb && string(ma) == string(mb)
}

// decimalOf reads the JSON number s as its sign and significant digits
// (appended to dst, no leading or trailing zeros: "-" first when
// negative, nothing for zero) and the power of ten that scales them; ok is
// false for anything else, or more digits than dst holds.
func decimalOf(dst, s []byte) (digits []byte, exp int, ok bool) {
	i := 0
	if i < len(s) && s[i] == '-' {
		dst = append(dst, '-')
		i++
	}
	start, frac, seen, any := len(dst), 0, false, false
	for ; i < len(s) && (digit(s[i]) || s[i] == '.'); i++ {
		any = any || s[i] != '.'
		switch {
		case s[i] == '.':
			if seen {
				return nil, 0, false
			}
			seen = true
		case s[i] == '0' && len(dst) == start:
			if seen {
				frac++ // a leading zero after the point scales, is no digit
			}
		default:
			if len(dst) == cap(dst) {
				return nil, 0, false
			}
			dst = append(dst, s[i])
			if seen {
				frac++
			}
		}
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		neg := i < len(s) && s[i] == '-'
		if i < len(s) && (s[i] == '-' || s[i] == '+') {
			i++
		}
		if i == len(s) {
			return nil, 0, false
		}
		for ; i < len(s) && digit(s[i]); i++ {
			if exp > 1e6 {
				return nil, 0, false
			}
			exp = exp*10 + int(s[i]-'0')
		}
		if neg {
			exp = -exp
		}
	}
	if i != len(s) || !any {
		return nil, 0, false
	}
	exp -= frac
	for len(dst) > start && dst[len(dst)-1] == '0' {
		dst = dst[:len(dst)-1]
		exp++
	}
	if len(dst) == start {
		return dst[:0], 0, true // zero, whatever its sign
	}
	return dst, exp, true
}

// floatEq reports whether two JSON numbers read as the same float64: a
// printer that parsed the client's number prints the float it got, in its
// shortest form (1.00000000000000001 as 1.0, 9007199254740993 as
// 9007199254740992 where it reads floats only). Only where one of them
// has more significant digits than a float64 keeps (15), so numberEq's
// exact decimals may differ for the same float.
func floatEq(a, b []byte) bool {
	if sigDigits(a) <= 15 && sigDigits(b) <= 15 {
		return false
	}
	fa, err := strconv.ParseFloat(string(a), 64)
	if err != nil {
		return false
	}
	fb, err := strconv.ParseFloat(string(b), 64)
	return err == nil && fa == fb
}

// sigDigits counts the digits of a JSON number's mantissa after its
// leading zeros.
func sigDigits(b []byte) int {
	n, lead := 0, true
	for _, c := range b {
		switch {
		case c == 'e' || c == 'E':
			return n
		case c == '0' && lead:
		case digit(c):
			lead = false
			n++
		}
	}
	return n
}
