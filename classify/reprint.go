package classify

import (
	"bytes"
	"strconv"
	"strings"
	"unicode/utf8"
)

// An upstream that parses the client's JSON (a tool's schema, metadata, a
// message) and prints it again in its error quotes the client as surely
// as one that copies its bytes, but not in the client's bytes: compact or
// spaced, as JSON or as a Python repr, escapes decoded, numbers and key
// order as its own printer writes them. Two checks, made only for a quoted
// answer's verdict that would be used (relayedAnswer), hold a client's
// object printed back as the client's (docs/design.md, "Quoted answers"):
// its opening read without blanks, quotes and backslashes (squeezedEchoed),
// and the member that decided its class found in the request's structure
// (memberEchoed) or every scalar member of it found among the request's
// members (pairsEchoed), whatever order and spelling the rest is in.

// squeezedEchoed reports whether the opening of a quoted object occurs in
// the request when both are read without blanks, double quotes and
// backslashes, ASCII case folded, the request's \uXXXX escapes decoded.
// One pass over the request (Knuth–Morris–Pratt over its squeezed bytes),
// nothing allocated. A single quote is kept: a quoted object is read as
// JSON (a repr converted), so its quotes are double, and a repr the client
// holds as text (an SDK's printout of an earlier failure, in an agent's
// conversation) is not the JSON a relay quotes.
func squeezedEchoed(req, probe []byte) bool {
	var nb [quotedProbe]byte
	needle := squeeze(nb[:0], probe)
	if len(needle) == 0 {
		return false
	}
	var fail [quotedProbe]int
	for i, k := 1, 0; i < len(needle); i++ {
		for k > 0 && needle[i] != needle[k] {
			k = fail[k-1]
		}
		if needle[i] == needle[k] {
			k++
		}
		fail[i] = k
	}
	k := 0
	var rb [utf8.UTFMax]byte
	for i := 0; i < len(req); i++ {
		run := req[i : i+1]
		if req[i] == '\\' && i+1 < len(req) && req[i+1] == 'u' {
			// The character the upstream decoded and printed.
			if r, w, ok := escapedRune(req, i, `\`); ok {
				run = utf8.AppendRune(rb[:0], r)
				i += w - 1
			}
		}
		for _, c := range run {
			if squeezed(c) {
				continue
			}
			c = lowerTab[c]
			for k > 0 && c != needle[k] {
				k = fail[k-1]
			}
			if c == needle[k] {
				if k++; k == len(needle) {
					return true
				}
			}
		}
	}
	return false
}

// squeezed reports whether squeezedEchoed leaves c out: a blank, a double
// quote or a backslash.
func squeezed(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\\':
		return true
	}
	return false
}

// squeeze appends b to dst without what squeezed leaves out, ASCII letters
// in lower case.
func squeeze(dst, b []byte) []byte {
	for _, c := range b {
		if !squeezed(c) {
			dst = append(dst, lowerTab[c])
		}
	}
	return dst
}

// memberEchoed reports whether the request's JSON structure (not the text
// inside its strings) holds a member whose value yields ev, the evidence of
// a machine-readable code (codes.go): a string read as the code's source
// reads it, escapes decoded, or a number named as a code or status is.
// Key order, spacing, escapes and the printer's number spelling do not
// matter. One pass over the request, nothing allocated.
func memberEchoed(req []byte, ev string) bool {
	src, num, ok := evidenceSource(ev)
	if !ok {
		return false
	}
	return membersHold(req, ev, src, num, false)
}

// membersHold is memberEchoed's pass over req; inArgs where req is a tool
// call's arguments, decoded (read one level only).
func membersHold(req []byte, ev string, src codeSource, num int, inArgs bool) bool {
	var vb [64]byte
	for i := 0; i < len(req); i++ {
		if req[i] != '"' {
			continue
		}
		ke := stringEnd(req, i)
		if ke < 0 {
			return false
		}
		key := req[i+1 : ke-1]
		j := skipWS(req, ke)
		i = ke - 1
		if j >= len(req) || req[j] != ':' {
			continue
		}
		j = skipWS(req, j+1)
		if j >= len(req) {
			return false
		}
		if req[j] == '"' {
			ve := stringEnd(req, j)
			if ve < 0 {
				return false
			}
			i = ve - 1
			if !inArgs && jsonStringEq(key, []byte("arguments")) {
				// JSON in a tool call's arguments string, which Detour
				// sends on as an object (chat.Arguments).
				buf := textBufs.Get()
				d, ok := unescapeString(buf[:0], req[j+1:ve-1])
				hit := ok && membersHold(d, ev, src, num, true)
				textBufs.Put(buf)
				if hit {
					return true
				}
			}
			if num >= 0 {
				continue
			}
			if v, ok := decodeShort(vb[:0], req[j+1:ve-1], src == srcAmzHeader); ok {
				if _, e, ok := lookupCode(src, v); ok && e == ev {
					return true
				}
			}
			continue
		}
		e := j
		for e < len(req) && (digit(req[e]) || req[e] == '-') {
			e++
		}
		if e == j || !codeName(key) {
			continue
		}
		if num >= 0 {
			if n := req[j:e]; len(n) == 3 && digit(n[0]) && int(n[0]-'0')*100+int(n[1]-'0')*10+int(n[2]-'0') == num {
				return true
			}
		} else if _, e2, ok := lookupCode(src, req[j:e]); ok && e2 == ev {
			return true
		}
		i = e - 1
	}
	return false
}

// evidenceSource returns the code source ev names, and the status of a
// numeric code's own evidence ("code:429", -1 for any other).
func evidenceSource(ev string) (src codeSource, num int, ok bool) {
	if v, ok := strings.CutPrefix(ev, sourcePrefix[srcCode]); ok && len(v) == 3 && digit(v[0]) && digit(v[1]) && digit(v[2]) {
		if n := int(v[0]-'0')*100 + int(v[1]-'0')*10 + int(v[2]-'0'); n >= 100 && n <= 599 && codeStatusEvidence[n] == ev {
			return srcCode, n, true
		}
	}
	for s, p := range sourcePrefix {
		if strings.HasPrefix(ev, p) {
			return codeSource(s), -1, true
		}
	}
	return 0, -1, false
}

// codeName reports whether a member of this name holds a numeric code or
// status where the scanner reads one.
func codeName(key []byte) bool {
	switch string(key) {
	case "code", "errorCode", "error_code", "status", "status_code", "statusCode":
		return true
	}
	return false
}

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

// maxPairs bounds the scalar members of a quoted object pairsEchoed looks
// for (the first ones).
const maxPairs = 16

// pairsEchoed reports whether every scalar member of the quoted object obj
// (its first maxPairs, at least one) is also a member of the request's
// JSON: the same name and the same value, strings compared with escapes
// decoded and ASCII case folded, numbers by value (1e0 is 1.0), literals
// as written, in any order and at any depth. A quoted object whose class
// came from something other than a code (Gemini's quotaId, a retryDelay)
// is the client's so when the upstream printed the client's object back.
// One pass over the request, nothing allocated.
func pairsEchoed(req, obj []byte) bool {
	var keys, vals [maxPairs][]byte
	var strs [maxPairs]bool
	n := 0
	forMembers(obj, func(k, v []byte, str bool) bool {
		if !str && (v[0] == '{' || v[0] == '[') {
			return true
		}
		keys[n], vals[n], strs[n] = k, v, str
		n++
		return n < maxPairs
	})
	if n == 0 {
		return false
	}
	var found uint32
	all := uint32(1)<<n - 1
	forMembers(req, func(k, v []byte, str bool) bool {
		for i := 0; i < n; i++ {
			if found&(1<<i) != 0 || strs[i] != str || !jsonStringEq(keys[i], k) {
				continue
			}
			if str && jsonStringEq(vals[i], v) || !str && (string(vals[i]) == string(v) || numberEq(vals[i], v) || floatEq(vals[i], v)) {
				found |= 1 << i
			}
		}
		return found != all
	})
	return found == all
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

// textsEchoed reports whether every text of the quoted object obj (its
// message: the words the scanner reads) is in the request, or it has
// none: a client's object printed back holds the client's words, an
// earlier failure of the same kind in the client's conversation holds
// other ones (another request id, other numbers).
func textsEchoed(req, obj []byte) bool {
	var s scanner
	s.readAnswer(obj)
	for i := 0; i < s.f.nTexts; i++ {
		if t := s.f.texts[i]; len(t) > 0 && !echoed(req, t[:min(len(t), quotedProbe)]) {
			return false
		}
	}
	return true
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
