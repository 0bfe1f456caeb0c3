package classify

import (
	"strings"
	"unicode/utf8"
)

// An upstream that parses the client's JSON (a tool's schema, metadata, a
// message) and prints it again in its error quotes the client as surely
// as one that copies its bytes, but not in the client's bytes: compact or
// spaced, as JSON or as a Python repr, escapes decoded, numbers and key
// order as its own printer writes them. Three checks, made only for a
// quoted answer's verdict that would be used (relayedAnswer), hold a
// client's object printed back as the client's (docs/design.md, "Quoted
// answers"): its opening read without blanks, quotes and backslashes
// (squeezedEchoed); the code that decided its class found among the
// request's members, with the object's words in the request too
// (memberEchoed, textsEchoed); every scalar member of it found among the
// request's members (pairsEchoed). The members are read as jsonmembers.go
// reads them: in any order, escapes decoded, numbers by value.

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
// inside its strings, but a tool call's arguments: forMembers) holds a
// member whose value yields ev, the evidence of a machine-readable code
// (codes.go): a string read as the code's source reads it, escapes
// decoded, or a number named as a code or status is. Key order, spacing,
// escapes and the printer's number spelling do not matter. One pass over
// the request, nothing allocated.
func memberEchoed(req []byte, ev string) bool {
	src, num, ok := evidenceSource(ev)
	if !ok {
		return false
	}
	var vb [64]byte
	hit := false
	forMembers(req, func(k, v []byte, str bool) bool {
		switch {
		case str:
			if num < 0 {
				if c, ok := decodeShort(vb[:0], v, src == srcAmzHeader); ok {
					_, e, ok := lookupCode(src, c)
					hit = ok && e == ev
				}
			}
		case !codeName(k):
		case num >= 0:
			hit = len(v) == 3 && digit(v[0]) && digit(v[1]) && digit(v[2]) &&
				int(v[0]-'0')*100+int(v[1]-'0')*10+int(v[2]-'0') == num
		default:
			_, e, ok := lookupCode(src, v)
			hit = ok && e == ev
		}
		return !hit
	})
	return hit
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
