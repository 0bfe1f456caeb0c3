package classify

import "unicode/utf8"

// normText: the text the echo check compares, normalised (echo.go).

// normText reads raw text as the echo check compares it.
type normText struct {
	b []byte
	// deep also reads an escaped backslash's escape (unescapeDeepAt): the
	// request's side, and the answer's where echoed finds nothing
	// (deeperEchoed).
	deep bool
	// pct also reads a URL's encoding: "%XX" of an ASCII byte as that
	// byte, '+' as a blank (the request's side: echoedInURL).
	pct   bool
	i     int
	pend  [3 * 3]byte // the rest of a decoded multi-byte rune, or of a Hangul syllable's jamo
	np    int
	pi    int
	blank bool // the last byte returned was a folded blank
	// dec is the rest of the compatibility decomposition of the last
	// character read (echo_nfkd.go), each of its characters still to
	// fold: norm's table, never a copy.
	dec []byte
}

// next returns the next normalised byte, or -1 at the end.
func (n *normText) next() int {
	for {
		if n.pi < n.np {
			c := n.pend[n.pi]
			n.pi++
			return int(c)
		}
		if len(n.dec) > 0 {
			r, w := utf8.DecodeRune(n.dec)
			n.dec = n.dec[w:]
			if b, ok := n.emit(r); ok {
				return b
			}
			continue
		}
		if n.i >= len(n.b) {
			return -1
		}
		c := n.b[n.i]
		var r rune
		switch {
		case c >= utf8.RuneSelf:
			// A byte that is not UTF-8 reads as U+FFFD, as an upstream
			// that decodes the client's text and quotes it back writes
			// it (both sides alike).
			var w int
			r, w = utf8.DecodeRune(n.b[n.i:])
			n.i += w
		case n.pct && c == '+':
			n.i++
			r = ' '
		case n.pct && c == '%':
			var w int
			if r, w = pctRune(n.b, n.i); w == 0 {
				r, w = '%', 1
			}
			n.i += w
		case c == '\\':
			var w int
			r, w = unescapeAt(n.b, n.i)
			if n.deep && r == '\\' && w == 2 {
				r, w = unescapeDeepAt(n.b, n.i)
			}
			n.i += w
		default:
			n.i++
			r = rune(c)
		}
		if r >= 0xA0 {
			// Read as its decomposition (echo_nfkd.go): a Hangul
			// syllable's jamo, which fold to themselves, at once.
			if r >= hangulBase && r < hangulEnd {
				n.np, n.pi, n.blank = hangulJamo(&n.pend, r), 0, false
				continue
			}
			if d := decompose(r); len(d) > 0 {
				n.dec = d
				continue
			}
		}
		if b, ok := n.emit(r); ok {
			return b
		}
	}
}

// emit returns the first byte r reads as (its rest pending), ok false
// where it reads as nothing: a blank after a blank, or a character a
// server drops (foldRune).
func (n *normText) emit(r rune) (int, bool) {
	if r > 0x3000 && r < 0xFB00 || r >= 0x300 && r < 0x370 {
		// CJK and the rest up to the ligatures, and the combining
		// diacritical marks an accented letter decomposes into
		// (echo_nfkd.go): nothing there folds (foldRune, expandRune).
		n.blank = false
		n.np = utf8.EncodeRune(n.pend[:], r)
		n.pi = 1
		return int(n.pend[0]), true
	}
	if r >= utf8.RuneSelf {
		if x := expandRune(r); x != "" {
			n.blank = false
			n.np = copy(n.pend[:], x)
			n.pi = 1
			return int(n.pend[0]), true
		}
		if r = foldRune(r); r < 0 {
			return 0, false
		}
	}
	switch {
	case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\b' || r == '\f':
		if n.blank {
			return 0, false
		}
		n.blank = true
		return ' ', true
	case r < utf8.RuneSelf:
		n.blank = false
		return int(lowerTab[byte(r)]), true
	}
	n.blank = false
	n.np = utf8.EncodeRune(n.pend[:], r)
	n.pi = 1
	return int(n.pend[0]), true
}

// skip advances, while nothing is pending, past raw bytes that can neither
// be c nor decode to it (c is a lower-case ASCII letter or digit).
func (n *normText) skip(c byte) {
	if n.pi < n.np || len(n.dec) > 0 {
		return
	}
	up := c
	if c >= 'a' && c <= 'z' {
		up = c - 'a' + 'A'
	}
	i := n.i
	for i < len(n.b) {
		if b := n.b[i]; b == c || b == up || b == '\\' || n.pct && b == '%' || b >= 0xC2 && (foldStart(n.b, i) || decomposesTo(n.b, i, c)) {
			break
		}
		i++
	}
	if i > n.i {
		n.i, n.blank = i, false
	}
}

// unescapeAt decodes the JSON escape at b[i] (a backslash) and returns the
// rune and the bytes it took. Anything that is not a valid escape is the
// backslash itself.
func unescapeAt(b []byte, i int) (rune, int) {
	if i+1 >= len(b) {
		return '\\', 1
	}
	switch b[i+1] {
	case 'n':
		return '\n', 2
	case 't':
		return '\t', 2
	case 'r':
		return '\r', 2
	case 'b':
		return '\b', 2
	case 'f':
		return '\f', 2
	case '"', '\\', '/':
		return rune(b[i+1]), 2
	case 'u':
		if r, w, ok := escapedRune(b, i, `\`); ok {
			return r, w
		}
	}
	return '\\', 1
}

// unescapeDeepAt reads the escaped backslash at b[i] (the two bytes `\\`)
// together with the escape it begins one level down. JSON inside the
// client's strings (a tool call's arguments, a tool result's content)
// reaches the upstream decoded twice, since Detour sends it on as JSON
// (Gemini's functionCall.args, Anthropic's tool_use.input): `\\u0063` is
// then read as "c", `\\\"` as a quote, `\\n` as a newline. Anything else is
// the backslash.
func unescapeDeepAt(b []byte, i int) (rune, int) {
	j := i + 2 // what follows the escaped backslash
	if j >= len(b) {
		return '\\', 2
	}
	switch c := b[j]; c {
	case 'n':
		return '\n', 3
	case 't':
		return '\t', 3
	case 'r':
		return '\r', 3
	case 'b':
		return '\b', 3
	case 'f':
		return '\f', 3
	case '/':
		return '/', 3
	case '\\':
		// An escaped quote or backslash one level down.
		if j+1 < len(b) && (b[j+1] == '"' || b[j+1] == '\\') {
			return rune(b[j+1]), 4
		}
	case 'u':
		if r, w, ok := escapedRune(b, i, `\\`); ok {
			return r, w
		}
	}
	return '\\', 2
}

// escapedRune reads the \uXXXX escape at b[i] whose backslash is written
// as lead (once, or escaped itself one level down): the rune, a surrogate
// pair (both halves written alike) joined and a lone surrogate U+FFFD, and
// the bytes it took; ok is false when its four hex digits are not there.
func escapedRune(b []byte, i int, lead string) (r rune, width int, ok bool) {
	n := len(lead) + 1 // the lead and the 'u'
	if r, ok = hex4(b, i+n); !ok {
		return 0, 0, false
	}
	w := n + 4
	switch {
	case r >= 0xD800 && r < 0xDC00:
		if k := i + w; k+n <= len(b) && string(b[k:k+len(lead)]) == lead && b[k+len(lead)] == 'u' {
			if lo, ok := hex4(b, k+n); ok && lo >= 0xDC00 && lo < 0xE000 {
				return 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00), 2 * w, true
			}
		}
		return utf8.RuneError, w, true
	case r >= 0xDC00 && r < 0xE000:
		return utf8.RuneError, w, true
	}
	return r, w, true
}

func hex4(b []byte, i int) (rune, bool) {
	if i+4 > len(b) {
		return 0, false
	}
	var r rune
	for _, c := range b[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// appendNorm appends raw, normalised and with no leading or trailing blank,
// to dst.
func appendNorm(dst, raw []byte) []byte {
	n := normText{b: raw, blank: true} // leading blanks are dropped
	for c := n.next(); c >= 0; c = n.next() {
		dst = append(dst, byte(c))
	}
	if len(dst) > 0 && dst[len(dst)-1] == ' ' {
		dst = dst[:len(dst)-1]
	}
	return dst
}
