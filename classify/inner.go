package classify

import (
	"bytes"
	"net/http"
	"unicode/utf8"
)

// A relay that fails because its upstream failed often quotes the
// upstream's whole answer as text in an envelope of its own: OpenRouter in
// error.metadata.raw ({"error":{"message":"Provider returned error",
// "metadata":{"raw":"{\"error\":…}"}}}), LiteLLM after its exception names
// ("litellm.BadRequestError: AnthropicException - {\"type\":\"error\",…}"),
// an SDK-based proxy after "Error code: 429 - ". Inside a string, the
// upstream's codes, types, params and details are no longer structure, and
// the relay's own words ("Provider returned error") say nothing. So a text
// that is such a quoted answer is read as the answer itself (docs/design.md,
// "Quoted answers"): the quoted JSON object, with the relay's status (or the
// one the lead names), decides, unless all it yields is that status's
// default, when the relay's envelope is read as before.
//
// Only a text that is the quoted object whole, or that opens with a relay's
// lead (an exception's name and its separator, or "Error code: N - ")
// followed by it, is read so; a quote inside a sentence ("Invalid value:
// '{…}'", what the client sent) is not, and neither is a quoted object the
// client's request holds (echo.go). A quoted answer is read once: one
// quoted inside it is not read again.

// quotedAnswer returns the first upstream answer quoted whole in one of
// f's texts, decoded into a buffer from textBufs (to be handed back), the
// lead before it as written, the object as the text holds it where a bytes
// value's escapes were decoded from it (nil otherwise: quotedEchoed), and
// the status the lead names (0 for none); nil when no text is one. Only the
// first is returned: one classification reads at most one quoted answer.
// outer is the status the answer came with: in a 5xx, a 4xx relayed with
// its reason phrase anywhere in a text also leads one (phraseStatusBody),
// unless the client's request req holds it.
func quotedAnswer(f *facts, outer int, req []byte) (obj, lead, raw []byte, st int, buf *[MaxBody]byte) {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		k := bytes.IndexByte(t, '{')
		if k < 0 {
			continue
		}
		lead, asBytes := bytesLead(arrayOpen(t[min(wholeQuoted(t), k):k]))
		st, ok := quoteLead(lead)
		if !ok && (outer >= 500 || outer == http.StatusTooManyRequests) {
			// In a 5xx, a 4xx with its reason phrase before the object,
			// wherever it stands (relay.go, phraseStatusBody); the last.
			// In a 429 too: a relay that gives up after its attempts
			// answers 429 and quotes the last upstream answer
			// (Antigravity-Manager's "All 2 attempts failed. Last error:
			// HTTP 400 Bad Request: {…}"; round 59, hunt 59f).
			if ps, _, b, _ := phraseStatusBody(t, req); ps > 0 {
				k, st, ok, asBytes = b, ps, true, false
			}
		}
		if !ok {
			continue
		}
		buf := textBufs.Get()
		// A JSON string's text is decoded; a plain-text body's is the
		// object as written ("Error code: 429 - {…}" as a server's str(e)).
		d, ok := append(buf[:0], t[k:]...), true
		if !f.plain {
			d, ok = unescapeString(buf[:0], t[k:])
		}
		if ok && asBytes {
			d = bytesUnquote(d)
		}
		// A Python dict's repr ({'error': …}) is read as the JSON it was
		// decoded from (repr.go); the object as written is kept for the
		// echo check, as a bytes value's is.
		if ok && !asBytes && len(d) > 1 && d[1] == '\'' {
			jbuf := textBufs.Get()
			j, _, isRepr := reprJSON(jbuf[:0], d)
			textBufs.Put(buf)
			if isRepr {
				return j, t[:k], t[k:], st, jbuf
			}
			textBufs.Put(jbuf)
			continue
		}
		// A JSON object's first member is a quoted name; the rest is the
		// scanner's to read.
		if e := objectEnd(d); ok && e > 0 && firstKey(d[1:e]) {
			if asBytes {
				return d[:e], t[:k], t[k:], st, buf
			}
			return d[:e], t[:k], nil, st, buf
		}
		textBufs.Put(buf)
	}
	return nil, nil, nil, 0, nil
}

// mayQuote reports whether body may hold a quoted answer: an escaped quote
// (JSON quoted in a string), a Python dict's opening ({'error': …}), or an
// object inside a body in plain text.
func mayQuote(body []byte) bool {
	if bytes.Contains(body, []byte(`\"`)) || bytes.Contains(body, []byte(`{'`)) {
		return true
	}
	t := trimLeft(body)
	return len(t) > 0 && t[0] != '{' && t[0] != '[' && t[0] != '<' && bytes.IndexByte(t, '{') > 0
}

// quotedEchoed reports whether a quoted answer is the client's own text:
// its opening (decoded, or as written where a bytes value's escapes were
// decoded: a client's "\'" is no longer in the request once read as "'")
// or its lead is in the request.
func quotedEchoed(req, inner, lead, raw []byte) bool {
	if len(req) == 0 {
		return false
	}
	lead = bytes.TrimSpace(lead)
	return echoed(req, inner[:min(len(inner), quotedProbe)]) ||
		len(raw) > 0 && echoed(req, raw[:min(len(raw), quotedProbe)]) ||
		len(lead) > 0 && echoed(req, lead) ||
		squeezedEchoed(req, inner[:min(len(inner), quotedProbe)])
}

// quoteLead reports whether lead may come before a quoted answer: nothing,
// blanks, an exception's name and its separator, or "Error code: N - " after
// one; st is the N a lead names (0 for none).
func quoteLead(lead []byte) (st int, ok bool) {
	lead = bytes.TrimLeft(lead, " ")
	if len(lead) == 0 {
		return 0, true
	}
	const p = "error code: "
	if k := indexFold(lead, p); k >= 0 {
		d := lead[k+len(p):]
		if len(d) != 6 || !digit(d[0]) || !digit(d[1]) || !digit(d[2]) || string(d[3:]) != " - " || !relayPrefix(lead[:k]) {
			return 0, false
		}
		return int(d[0]-'0')*100 + int(d[1]-'0')*10 + int(d[2]-'0'), true
	}
	if !relayPrefix(lead) {
		return 0, false
	}
	return namedStatus(lead), true
}

// sdkErrorStatus maps the OpenAI SDKs' exception names, which LiteLLM and
// other SDK-based relays name an upstream's failure by, to the status
// each stands for (the SDKs' documented mapping: 400 BadRequestError, 401
// AuthenticationError, 403 PermissionDeniedError, 404 NotFoundError, 422
// UnprocessableEntityError, 429 RateLimitError; LiteLLM's own
// ContextWindowExceededError and ContentPolicyViolationError are 400s).
var sdkErrorStatus = map[string]int{
	"badrequesterror": 400, "authenticationerror": 401, "permissiondeniederror": 403,
	"notfounderror": 404, "unprocessableentityerror": 422, "ratelimiterror": 429,
	"contextwindowexceedederror": 400, "contentpolicyviolationerror": 400,
}

// namedStatus returns the status the last exception name of a relay's lead
// stands for (sdkErrorStatus), 0 for none: the name just before the quoted
// answer is the relay's name for it ("litellm.ServiceUnavailableError:
// litellm.MidStreamFallbackError: litellm.BadRequestError:
// Vertex_ai_betaException BadRequestError - b'{…}'": a 400, whatever
// status the relay chose to send).
func namedStatus(lead []byte) int {
	lead = bytes.TrimRight(lead, " ")
	lead = bytes.TrimRight(lead, ":-")
	lead = bytes.TrimRight(lead, " ")
	k := len(lead)
	for k > 0 && (wordTab[lead[k-1]] == 1 || lead[k-1] == '_') {
		k--
	}
	w := lead[k:]
	if len(w) == 0 || len(w) > 32 {
		return 0
	}
	var b [32]byte
	for i, c := range w {
		b[i] = lowerTab[c]
	}
	return sdkErrorStatus[string(b[:len(w)])]
}

// arrayOpen returns lead without the bracket (and the blanks after it)
// that opens a JSON array before the quoted object: Gemini streams its
// errors as an array of one answer ([{"error": …}]), which a relay quotes
// as it came. Only the first object is read.
func arrayOpen(lead []byte) []byte {
	l := trimBlanks(lead)
	if n := len(l); n > 0 && l[n-1] == '[' {
		return l[:n-1]
	}
	return lead
}

// trimBlanks trims the blanks that end t, as written or escaped once or
// twice in the JSON text it is (`\n`, `\\n`: a bytes value's newline).
func trimBlanks(t []byte) []byte {
	for {
		n := len(t)
		switch {
		case n > 0 && (t[n-1] == ' ' || t[n-1] == '\n' || t[n-1] == '\r' || t[n-1] == '\t'):
			t = t[:n-1]
		case n > 1 && t[n-2] == '\\' && (t[n-1] == 'n' || t[n-1] == 'r' || t[n-1] == 't'):
			t = bytes.TrimRight(t[:n-2], "\\")
		default:
			return t
		}
	}
}

// bytesLead reports a lead that ends in "b'" after a blank (or is it): the
// opening of a Python bytes value, the form LiteLLM quotes an upstream's raw
// answer in ("Vertex_ai_betaException BadRequestError - b'{\n  \"error\":
// …}\n'"); it returns the lead without it. Only "b'": a JSON object holds a
// double quote, so Python never writes it in b"…".
func bytesLead(lead []byte) ([]byte, bool) {
	n := len(lead)
	if n >= 2 && lead[n-2] == 'b' && lead[n-1] == '\'' && (n == 2 || lead[n-3] == ' ') {
		return lead[:n-2], true
	}
	return lead, false
}

// bytesUnquote decodes, in place, the escapes of a Python bytes value's
// text (\\ \' \" \n \r \t \xNN) up to the quote that closes it: what
// the value holds, the upstream's answer as it was sent.
func bytesUnquote(d []byte) []byte {
	w := 0
	for i := 0; i < len(d); i++ {
		c := d[i]
		if c == '\'' {
			break
		}
		if c == '\\' && i+1 < len(d) {
			switch d[i+1] {
			case '\\', '\'', '"':
				c, i = d[i+1], i+1
			case 'n':
				c, i = '\n', i+1
			case 'r':
				c, i = '\r', i+1
			case 't':
				c, i = '\t', i+1
			case 'x':
				if i+3 < len(d) {
					if h := hexByte(d[i+2], d[i+3]); h >= 0 {
						c, i = byte(h), i+3
					}
				}
			}
		}
		d[w] = c
		w++
	}
	return d[:w]
}

// firstKey reports whether b opens, after blanks, with a quoted name.
func firstKey(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '"'
}

// objectEnd returns the length of the JSON object d opens with (what
// follows it is the relay's: LiteLLM adds "Received Model Group=…"), 0 when
// it does not close.
func objectEnd(d []byte) int {
	depth, in := 0, false
	for i := 0; i < len(d); i++ {
		c := d[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			if depth--; depth == 0 {
				return i + 1
			}
		}
	}
	return 0
}

// unescapeString appends to dst the JSON string content raw (without its
// quotes) decoded (unescapeAt); false when raw holds a broken escape or an
// unescaped quote.
func unescapeString(dst, raw []byte) ([]byte, bool) {
	for i := 0; i < len(raw); {
		switch c := raw[i]; c {
		case '"':
			return nil, false
		case '\\':
			r, w := unescapeAt(raw, i)
			if w == 1 {
				return nil, false
			}
			dst = utf8.AppendRune(dst, r)
			i += w
		default:
			dst = append(dst, c)
			i++
		}
	}
	return dst, true
}

// relayedAnswer classifies the upstream answer a relay's error body quotes
// whole (quotedAnswer), under the relay's status st or the one its lead
// names; ok is false when the body quotes none, or when the quoted answer
// yields only its status's default.
func relayedAnswer(st int, h http.Header, body, req []byte, model string) (Verdict, bool) {
	if !mayQuote(body) { // the common case
		return Verdict{}, false
	}
	var s scanner
	s.readAnswer(body)
	// An envelope that names a request field (a param) is the upstream's
	// own field error about the client's input, not a relay's: what it
	// quotes is what the client sent.
	if !s.f.parsed || len(paramValue(s.f.param)) > 0 {
		return Verdict{}, false
	}
	inner, lead, raw, ist, buf := quotedAnswer(&s.f, st, req)
	if inner == nil {
		return Verdict{}, false
	}
	defer textBufs.Put(buf)
	// A status the lead names beside a URL the client sent is that
	// resource's (a relay that fetched the client's image), not the
	// provider's answer (as sdkStatusLead).
	if ist > 0 && len(req) > 0 && namesClientURL(lead, req) {
		return Verdict{}, false
	}
	// A 4xx with its reason phrase that the client wrote (relay.go,
	// phraseStatusBody) leads no quoted answer.
	if (st >= 500 || st == http.StatusTooManyRequests) && len(req) > 0 {
		if i := phraseStatusTail(lead); i >= 0 && echoed(req, lead[i:]) {
			return Verdict{}, false
		}
	}
	// A 4xx the lead names under the relay's 5xx is the upstream's
	// answer, which the relay's status hides: its status alone decides
	// when its words say nothing more (relayed:N), as a 5xx relay's
	// envelope would only say server_error.
	// Unless the quoted answer gives itself a 5xx (a numeric error.code:
	// Google's is its HTTP status): its own word outweighs the relay's name
	// for it. Not an error type: Anthropic-shaped relays type a 401 or a
	// 429 api_error or overloaded_error (corpus dario-401-…,
	// zhipu-429-1313-…), and Ollama's OpenAI-style 404 is an api_error.
	if own := ownServerStatus(inner); own > 0 && ist >= 400 && ist < 500 {
		ist = own
	}
	named := ist >= 400 && ist < 500 && st >= 500
	if ist < 400 || ist > 599 {
		ist = st
	}
	v := envelope(ist, h, inner, req, model)
	if !v.Failed || v.Evidence == statusEvidence[ist] && !named {
		return Verdict{}, false
	}
	// The client's own text is no quoted answer: neither an object whose
	// opening the request holds, nor a lead it holds, nor one whose
	// deciding code, or every member, is a member of the request's own
	// JSON, printed back in another order (echo checks made only for a
	// verdict that would be used: reprint.go).
	if quotedEchoed(req, inner, lead, raw) || memberEchoed(req, v.Evidence) && textsEchoed(req, inner) || pairsEchoed(req, inner) {
		return Verdict{}, false
	}
	// An account's answer about the relay's own key at its upstream is the
	// relay's failure, not the operator's account (relayKey).
	if r, ok := relayKey(v.Class, &s.f); ok {
		return r, true
	}
	if v.Evidence == statusEvidence[ist] {
		v.Evidence = relayedEvidence[ist]
	}
	// A request field named in the quoted answer (a param, a leading
	// path) is a relayed one, which the envelope's reading already weighs
	// against a capability gap (decide.go): "image_url is only supported
	// by certain models" relayed with its param, or "messages.0.content.1.
	// image: This model does not support image input", stays a gap.
	if v.Class == BadRequest && (v.Evidence == "openai:param" || v.Evidence == "message:field-path") {
		if named {
			st = ist // the relay's envelope read at the status it names
		}
		if o := envelope(st, h, body, req, model); o.Class == Unknown && o.Evidence != statusEvidence[st] {
			return o, true
		}
	}
	return v, true
}

// quotedProbe is how much of a quoted answer's opening is looked for in the
// client's request: enough to hold a code a client would write, short
// enough to be compared without allocating (maxNeedle).
const quotedProbe = 128

// envelope classifies a relay's error body as its own envelope reads.
func envelope(st int, h http.Header, body, req []byte, model string) Verdict {
	if st >= 500 {
		return serverHint(serverAnswer(st, h, body, req, model), st, h)
	}
	return serverHint(clientAnswer(st, h, body, req, model), st, h)
}

// ownServerStatus returns the 5xx a quoted answer gives itself as its
// numeric error.code, 0 for none.
func ownServerStatus(inner []byte) int {
	var s scanner
	s.readAnswer(inner)
	if s.f.numCode >= 500 && s.f.numCode <= 599 {
		return s.f.numCode
	}
	return 0
}
