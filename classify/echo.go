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
// gets decoded twice: unescapeDeepAt); where that finds nothing, the
// answer's side is read deeper too, two levels while escapes are left
// (deeperEchoed; review 64i). The search
// is a single KMP pass over the request that allocates nothing for a phrase
// (rule matches longer than maxNeedle bytes use the heap).

// maxNeedle is the longest normalised match compared without allocating:
// every phrase (with its gap) fits.
const maxNeedle = 256

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
	if containsReq(req, needle) || echoedLines(req, raw) || echoedInURL(req, needle) {
		return true
	}
	return deeperEchoed(req, raw)
}

// maxDeepRequest bounds the requests deeperEchoed reads: each level is a
// pass over the request, and a hostile one of 64 MiB of backslashes made a
// check cost a second (review 64k). Past it the check reads as before
// round 64.
const maxDeepRequest = 8 << 20

// deeperEchoed reports whether raw, read further down than echoed reads
// it, is in the request: JSON text inside a string of JSON text inside a
// string (OpenRouter's metadata.raw quoting an upstream that quoted the
// client) is escaped once more at each level, and the client's backslash
// reaches the answer as eight; a tab or a quote in the client's words so
// quoted hid them from the check (review 64i). Two levels past echoed's,
// only where a backslash is left, so an ordinary answer pays nothing. It
// only adds to what echoed finds (the first reading is as before: review
// 64k, where reading the answer's side deeper from the start let a client
// that wrote its backslash as \u005c make its words the upstream's).
func deeperEchoed(req, raw []byte) bool {
	if len(req) > maxDeepRequest || bytes.IndexByte(raw, '\\') < 0 {
		return false
	}
	var buf [maxNeedle]byte
	n := normText{b: raw, blank: true, deep: true}
	needle := buf[:0]
	for c := n.next(); c >= 0; c = n.next() {
		needle = append(needle, byte(c))
	}
	needle = bytes.TrimSuffix(needle, []byte{' '})
	for level := 0; level < 2 && len(needle) > 0; level++ {
		if containsReq(req, needle) {
			return true
		}
		if bytes.IndexByte(needle, '\\') < 0 {
			return false
		}
		var deeper [maxNeedle]byte
		next := appendNorm(deeper[:0], needle)
		if bytes.Equal(next, needle) {
			return false
		}
		needle = append(buf[:0], next...)
	}
	return false
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
