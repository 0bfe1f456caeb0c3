package classify

import (
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
// (memberEchoed), whatever order and spelling the rest is in.

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
			if num >= 0 {
				continue
			}
			if v, ok := decodeShort(vb[:0], req[j+1:ve-1]); ok {
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
			if n, err := strconv.Atoi(string(req[j:e])); err == nil && n == num {
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
	if v, ok := strings.CutPrefix(ev, sourcePrefix[srcCode]); ok {
		if n, err := strconv.Atoi(v); err == nil && n >= 100 && n <= 599 && codeStatusEvidence[n] == ev {
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
// (a code's length at most); ok is false when it does not fit.
func decodeShort(dst, s []byte) ([]byte, bool) {
	for i := 0; i < len(s); {
		r, w := rune(s[i]), 1
		if s[i] == '\\' {
			r, w = unescapeAt(s, i)
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
