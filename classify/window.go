package classify

// Windows overrun by one request: a rate-limit message that states the
// window's limit and what this one request brings (docs/behaviour.md, "How
// an answer is read") is overflow, not a wait: no retry, however long,
// makes the request fit.

// requestOverLimit reports a rate-limit message whose request alone exceeds
// the limit (overLimitEvidence).
func (ts *textScan) requestOverLimit() bool { return ts.overLimitEvidence() != "" }

// overLimitEvidence is the evidence of a rate-limit message whose request
// alone exceeds the limit, or "": "Limit 7000, Used 0, Requested ~12903"
// (Groq, OpenAI TPM), or a per-minute token cap that states no request
// size, below the request's own size (perMinuteCap, requestTokensAbove:
// Anthropic's "would exceed … 30,000 input tokens per minute" to a
// 57,000-token request, which no wait lets through). A "Requested" the
// client wrote itself is no evidence. A cap is taken as stated even where
// the client's text holds it too: what decides is the request's own size,
// and the overflow it makes moves only that request on, cooling nothing;
// read as the throttle, a client that quoted the cap (an agent working on
// Detour's own source) cooled the endpoint for every tenant (review 68f).
func (ts *textScan) overLimitEvidence() string {
	reqText := int64(-1) // the request's text, read once (requestAbove)
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		s, e := overLimit(t)
		if e <= s {
			var limit int64
			if s, e, limit = perMinuteCap(t); e <= s || !requestAbove(ts.req, limit, &reqText) {
				continue
			}
			return "phrase:request>per-minute-cap"
		}
		if len(ts.req) == 0 || !echoed(ts.req, t[s:e]) {
			return "phrase:requested>limit"
		}
		ts.echo = true
	}
	return ""
}

// overLimit finds "limit N … requested M" with M > N, or "(actual/limit):
// A/L" or "current: A, limit: L" with A > 2L, in t and returns its span; end
// is 0 when there is none.
func overLimit(t []byte) (start, end int) {
	if s, e := limitRequested(t); e > s {
		return s, e
	}
	if s, e := actualOverLimit(t); e > s {
		return s, e
	}
	return currentOverLimit(t)
}

// currentOverLimit reads "current: 1410, limit: 100" (Moonshot). As with
// actualOverLimit, a window that held at most the limit before this request
// and holds more than twice it now means this request alone is over it.
func currentOverLimit(t []byte) (start, end int) {
	k := indexFold(t, "current:")
	if k < 0 || countsRequests(t, k) {
		return 0, 0
	}
	i := k + len("current:")
	for i < len(t) && t[i] == ' ' {
		i++
	}
	actual, ok := number(t[i:])
	if !ok {
		return 0, 0
	}
	i = skipNumber(t, i)
	for i < len(t) && (t[i] == ' ' || t[i] == ',') {
		i++
	}
	if !bytesHasPrefixFold(t[i:], "limit:") {
		return 0, 0
	}
	i += len("limit:")
	for i < len(t) && t[i] == ' ' {
		i++
	}
	if e, over := overTwice(t, i, actual); over {
		return k, e
	}
	return 0, 0
}

// bytesHasPrefixFold reports whether t begins with p, ASCII case aside.
func bytesHasPrefixFold(t []byte, p string) bool {
	if len(t) < len(p) {
		return false
	}
	for i := 0; i < len(p); i++ {
		if lowerTab[t[i]] != p[i] {
			return false
		}
	}
	return true
}

// limitRequested reads "Limit 7000, Used 0, Requested ~12903".
func limitRequested(t []byte) (start, end int) {
	var limit int64
	i := 0
	for {
		k := indexFold(t[i:], "limit ")
		if k < 0 {
			return 0, 0
		}
		start = i + k
		i += k + len("limit ")
		if n, ok := number(t[i:]); ok {
			limit = n
			break
		}
	}
	j := indexFold(t[i:], "requested ")
	if j < 0 {
		return 0, 0
	}
	at := i + j + len("requested ")
	rest := t[at:]
	if len(rest) > 0 && rest[0] == '~' {
		rest, at = rest[1:], at+1
	}
	req, ok := number(rest)
	if !ok || limit <= 0 || req <= limit {
		return 0, 0
	}
	for at < len(t) && (t[at] >= '0' && t[at] <= '9' || t[at] == ',') {
		at++
	}
	return start, at
}

// overTwice reads the limit at t[i:]; ok when actual is more than twice
// it, with end where the limit's digits end.
func overTwice(t []byte, i int, actual int64) (end int, ok bool) {
	limit, ok := number(t[i:])
	if !ok || limit <= 0 || actual <= 2*limit {
		return 0, false
	}
	return skipNumber(t, i), true
}

// skipNumber returns where the digits (and thousands commas) at t[i:] end.
func skipNumber(t []byte, i int) int {
	for i < len(t) && (t[i] >= '0' && t[i] <= '9' || t[i] == ',') {
		i++
	}
	return i
}

// actualOverLimit reads "(actual/limit): 65605/16000" (xAI). The window held
// less than the limit before this request, so a total above twice the limit
// means this request alone is over it.
func actualOverLimit(t []byte) (start, end int) {
	k := indexFold(t, "actual/limit)")
	if k < 0 || countsRequests(t, k) {
		return 0, 0
	}
	i := k + len("actual/limit)")
	for i < len(t) && (t[i] == ' ' || t[i] == ':') {
		i++
	}
	actual, ok := number(t[i:])
	if !ok {
		return 0, 0
	}
	i = skipNumber(t, i)
	if i >= len(t) || t[i] != '/' {
		return 0, 0
	}
	i++
	if e, over := overTwice(t, i, actual); over {
		return k, e
	}
	return 0, 0
}

// number reads a decimal with optional thousands commas at the start of t.
func number(t []byte) (int64, bool) {
	var n int64
	digits := 0
	for _, c := range t {
		switch {
		case c >= '0' && c <= '9':
			if n > 1e15 {
				return 0, false
			}
			n = n*10 + int64(c-'0')
			digits++
		case c == ',' && digits > 0:
		default:
			return n, digits > 0
		}
	}
	return n, digits > 0
}

// countsRequests reports whether the window named just before t[k:], in the
// same sentence and within 48 bytes, counts requests and not tokens
// ("Requests per Minute (actual/limit): 1922/60", xAI; round 55): one
// request adds one to such a window, so no count over its limit is one
// request too large. Only a token window can be overrun by one request; a
// token word beside a request word keeps the over-twice reading.
func countsRequests(t []byte, k int) bool {
	s := k - 48
	if s < 0 {
		s = 0
	}
	w := t[s:k]
	for i := len(w) - 1; i >= 0; i-- {
		if w[i] == '.' || w[i] == ';' || w[i] == '\n' {
			w = w[i+1:]
			break
		}
	}
	for _, tok := range []string{"token", "tpm", "tpd"} {
		if indexFold(w, tok) >= 0 {
			return false
		}
	}
	for _, req := range []string{"requests per", "request per", "rpm", "rps", "rpd", "qpm", "qps"} {
		if indexFold(w, req) >= 0 {
			return true
		}
	}
	return false
}
