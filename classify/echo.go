package classify

import (
	"bytes"
	"unicode/utf8"
)

// Text the client supplied is no evidence. Upstreams quote the request back
// in their errors (OpenAI: "Invalid value: '<what you sent>'"), so a phrase
// or an operator rule whose matched text also occurs in the client's request
// body (Response.Request) proves nothing about the account or the endpoint:
// it is discarded and the next-best evidence decides (docs/design.md,
// "Echoed text").
//
// Both sides are compared as normText reads them: every character as its
// compatibility decomposition (NFKD: echo_nfkd.go), ASCII case folded, JSON
// escapes decoded (\u0071uota is quota; surrogate pairs joined), a byte that
// is not UTF-8 read as U+FFFD, a typographic single quote (’) as an
// apostrophe, as phrases read it, every run
// of blanks — spaces, tabs, newlines (and backspace, form feed), raw or
// escaped — one space. The request's side is also read one level deeper
// where it escapes a backslash (JSON inside its strings, which the upstream
// gets decoded twice: unescapeDeepAt). The search
// is a single KMP pass over the request that allocates nothing for a phrase
// (rule matches longer than maxNeedle bytes use the heap).

// maxNeedle is the longest normalised match compared without allocating:
// every phrase (with its gap) fits.
const maxNeedle = 256

// normText reads raw text as the echo check compares it.
type normText struct {
	b []byte
	// deep also reads an escaped backslash's escape (the request's side:
	// unescapeDeepAt).
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

// Echoed reports whether text occurs in the client's request req as the
// echo rule compares them (case, blanks and JSON escapes aside; whole, in
// pieces joined at line breaks, or URL-decoded): text the client supplied,
// which is no evidence. Dispatch asks it of the upstream's words health
// keeps for a cooldown. Empty text is never echoed.
func Echoed(req []byte, text string) bool { return echoed(req, []byte(text)) }

// echoed reports whether the text raw (as matched in an upstream body)
// occurs in the client's request req, as normText compares them, whole or
// in pieces joined at line breaks (echoedLines). Empty text is never
// echoed.
func echoed(req, raw []byte) bool {
	if len(req) == 0 || len(raw) == 0 {
		return false
	}
	var buf [maxNeedle]byte
	needle := appendNorm(buf[:0], raw)
	if len(needle) == 0 {
		return false
	}
	return containsReq(req, needle) || echoedLines(req, raw) || echoedInURL(req, needle)
}

// echoedInURL reports whether needle is in the request with the request
// read as a URL is decoded ("%XX" of an ASCII byte, '+' a blank): an
// upstream that fetched the client's URL quotes the file's name decoded
// ("Timeout while downloading insufficient balance.jpg" for
// …/insufficient%20balanc%65.jpg, review 32a).
func echoedInURL(req, needle []byte) bool {
	if bytes.IndexByte(req, '%') < 0 && bytes.IndexByte(req, '+') < 0 {
		return false
	}
	return containsNorm(req, needle, false, true)
}

// containsReq reports whether needle occurs in the request req, read as
// written or, where req escapes a backslash, also one level deeper (JSON
// inside its strings: unescapeDeepAt). Either reading is the client's text.
func containsReq(req, needle []byte) bool {
	return containsNorm(req, needle, false, false) || bytes.Contains(req, escapedBackslash) && containsNorm(req, needle, true, false)
}

var escapedBackslash = []byte(`\\`)

// maxLinePieces bounds the pieces echoedLines looks for; minLinePiece is
// the shortest piece (normalised) that counts: "a" is in any request.
const (
	maxLinePieces = 8
	minLinePiece  = 4
)

// echoedLines reports whether raw spans a line break or a cut and every
// piece of it between them occurs in req. Detour's translations join a
// message's text parts, or a request's system messages, with "\n" or
// "\n\n" (the Anthropic and Gemini adapters, the Messages and Responses
// doors), and an upstream that quotes the joined text back then holds a
// phrase the client sent only in pieces, in two of its strings ("Your
// credit balance" and "is too low to access …"): it is the client's text
// all the same. So is a phrase a server's cut of a long value assembled:
// pydantic quotes a value of more than 50 characters as its head and tail
// around "..." (input_value='…daily...limit…'), which may join words the
// client wrote apart.
func echoedLines(req, raw []byte) bool {
	n := 0
	for len(raw) > 0 {
		i, w := lineBreak(raw)
		if j, v := cutMark(raw); j >= 0 && (i < 0 || j < i) {
			i, w = j, v
		}
		if i < 0 {
			if n == 0 {
				return false // no line break: the whole text was looked for
			}
			i, w = len(raw), 0
		}
		if piece := raw[:i]; !blankOnly(piece) {
			if n++; n > maxLinePieces {
				return false
			}
			var buf [maxNeedle]byte
			needle := appendNorm(buf[:0], piece)
			if len(needle) < minLinePiece || !containsReq(req, needle) {
				return false
			}
		}
		raw = raw[i+w:]
	}
	return n > 1
}

// cutMark returns the index and width of the first mark of a cut in b —
// "..." or an ellipsis, raw or escaped (\u2026) — or -1.
func cutMark(b []byte) (int, int) {
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '.' && i+2 < len(b) && b[i+1] == '.' && b[i+2] == '.':
			w := 3
			for i+w < len(b) && b[i+w] == '.' {
				w++
			}
			return i, w
		case b[i] == 0xE2 && i+2 < len(b) && b[i+1] == 0x80 && b[i+2] == 0xA6:
			return i, 3
		case b[i] == '\\' && i+5 < len(b) && b[i+1] == 'u' && hasFold(b[i+2:i+6], "2026"):
			return i, 6
		case b[i] == '\\' && i+1 < len(b):
			i++
		}
	}
	return -1, 0
}

// lineBreak returns the index and width of the first line break in b — a
// raw CR or LF, or its JSON escape (\n, \r, \u000a, \u000d) — or -1.
func lineBreak(b []byte) (int, int) {
	for i := 0; i < len(b); i++ {
		switch {
		case b[i] == '\n' || b[i] == '\r':
			return i, 1
		case b[i] == '\\' && i+1 < len(b) && (b[i+1] == 'n' || b[i+1] == 'r'):
			return i, 2
		case b[i] == '\\' && i+5 < len(b) && b[i+1] == 'u' && (hasFold(b[i+2:i+6], "000a") || hasFold(b[i+2:i+6], "000d")):
			return i, 6
		case b[i] == '\\' && i+1 < len(b):
			i++ // another escape: its second byte is not a break
		}
	}
	return -1, 0
}

// blankOnly reports whether b holds nothing but blanks (as normText folds
// them).
func blankOnly(b []byte) bool {
	n := normText{b: b, blank: true}
	return n.next() < 0
}

// containsNorm reports whether needle (already normalised) occurs in hay
// read by normText: Knuth–Morris–Pratt, one pass, no backtracking.
func containsNorm(hay, needle []byte, deep, pct bool) bool {
	var fbuf [maxNeedle]int16
	var fail []int16
	if len(needle) <= len(fbuf) {
		fail = fbuf[:len(needle)]
	} else {
		fail = make([]int16, len(needle))
	}
	for i, k := 1, 0; i < len(needle); i++ {
		for k > 0 && needle[i] != needle[k] {
			k = int(fail[k-1])
		}
		if needle[i] == needle[k] {
			k++
		}
		fail[i] = int16(k)
	}
	c0 := needle[0]
	fast := c0 < utf8.RuneSelf && wordTab[c0] == 1
	n := normText{b: hay, deep: deep, pct: pct}
	k := 0
	for {
		if k == 0 && fast {
			n.skip(c0)
		}
		var c int
		// Inline the common byte: nothing pending (nor a decomposition's
		// rest), no escape, no blank, ASCII.
		if i := n.i; n.pi >= n.np && len(n.dec) == 0 && i < len(hay) && hay[i] > ' ' && hay[i] != '\\' && hay[i] < utf8.RuneSelf && !(pct && (hay[i] == '%' || hay[i] == '+')) {
			n.i, n.blank, c = i+1, false, int(lowerTab[hay[i]])
		} else if c = n.next(); c < 0 {
			return false
		}
		for k > 0 && byte(c) != needle[k] {
			k = int(fail[k-1])
		}
		if byte(c) == needle[k] {
			k++
			if k == len(needle) {
				return true
			}
		}
	}
}

// valueEchoed reports whether the client's request req holds the code v as
// a member's value (`: "v"`), as the echo check compares text: JSON escapes
// decoded ("error\u005fcode", "organizatio\u006e_on_hold"), ASCII case
// folded, JSON inside a string read too (a tool call's arguments,
// "{\"error_code\":\"organization_on_hold\"}"), any member's name. An
// upstream that quotes a request's metadata, a tool's arguments or the
// whole request back in its error object (a Responses server answering
// {**request, "error": …}) writes the client's code where its own would
// stand: no evidence (reviews 62k, 63a; docs/behaviour.md, "Echoed text").
// A member's name is not its value: a request holding "refusal": null or
// a tool's "timeout" parameter does not hide OpenRouter's "refusal" or
// "timeout" (review 62l).
func valueEchoed(req, v []byte) bool {
	if len(req) == 0 || len(v) == 0 || len(v) > 64 {
		return false
	}
	var raw [70]byte
	for _, open := range [...]string{`:"`, `: "`} {
		needle := append(append(append(raw[:0], open...), v...), '"')
		if echoed(req, needle) {
			return true
		}
	}
	return false
}

// codeEchoGuarded reports whether a code of class c would act beyond the
// request — cool an endpoint or an account, page the operator, move the
// walk on for everyone — so that the client's text must never make it:
// the classes about the provider (aboutProvider), and a timeout, which
// counts against the endpoint. A request-scoped class (the request's own
// fault) harms no one else.
func codeEchoGuarded(c Class) bool { return aboutProvider(c) || c == Timeout }

// topValueIs reports whether req, a JSON object, has a top-level member
// named name (its name escaped or not) whose value is the JSON string v,
// escapes decoded on both sides, ASCII case aside (lookupCode folds case),
// or an object or a list that holds v as a member's value (valueEchoed).
func topValueIs(req []byte, name string, v []byte) bool {
	if len(req) == 0 || name == "" {
		return false
	}
	var want [64]byte
	w, ok := decodeShort(want[:0], v, false)
	if !ok {
		return false
	}
	keys := []string{name}
	return members(req, func(s, e, depth int, _ bool) bool {
		if depth != 1 || !isKey(req[s:e], keys) {
			return false
		}
		i := skipWS(req, skipWS(req, e+1)+1) // past the name's quote and the colon
		if i < len(req) && (req[i] == '{' || req[i] == '[') {
			end := objectEnd(req[i:])
			return end > 0 && valueEchoed(req[i:i+end], v)
		}
		if i >= len(req) || req[i] != '"' {
			return false
		}
		end := stringEnd(req, i)
		if end < 0 {
			return false
		}
		var got [64]byte
		g, ok := decodeShort(got[:0], req[i+1:end-1], false)
		return ok && eqFold(g, string(w))
	})
}
