package classify

import "net/http"

// decide refines a status default with what the body (and the AWS error-type
// header) says. The order is the precedence of SPEC §2:
//
//  1. Gemini QuotaFailure periods: a per-day (or longer) quotaId is quota, a
//     per-minute one alone is rate_limited, whatever the message says.
//  2. Strong codes (invalid_api_key, insufficient_quota, model_not_found,
//     context_length_exceeded, content_filter, API_KEY_INVALID,
//     UnrecognizedClientException, …), in source order.
//  3. The period of a Google quota metric named in the message
//     (…googleapis.com/…_per_minute_…), read like a quotaId, where the
//     answer speaks of quota or rate at all.
//  4. Phrases in the human texts (the whole body when it is not JSON), by
//     the priority of mainPhrases; then "Limit N … Requested M" with M > N,
//     or "(actual/limit): A/L" with A > 2L, a single request larger than a
//     per-minute cap, is overflow.
//  5. Weak codes (rate_limit_error, overloaded_error, RESOURCE_EXHAUSTED, …).
//  6. Structural evidence of bad input (a param, Gemini fieldViolations, a
//     message that begins with the offending field's path) — only where the
//     status default is unknown, as are bad-input phrases and codes.
//  7. The status default.
func decide(def Class, defEv string, h http.Header, body []byte, f *facts) Verdict {
	if f.perDay {
		return Verdict{Failed: true, Class: Quota, Evidence: "gemini:quotaId=PerDay"}
	}
	if f.perMinute {
		return Verdict{Failed: true, Class: RateLimited, Evidence: "gemini:quotaId=PerMinute"}
	}

	var cs codeScan
	cs.allowBad = def == Unknown
	if vs := h["X-Amzn-Errortype"]; len(vs) > 0 {
		cs.try(srcAmzHeader, []byte(vs[0]))
	}
	cs.try(srcAmzHeader, f.amzType)
	for i := 0; i < f.nReasons; i++ {
		cs.try(srcReason, f.reasons[i])
	}
	cs.try(srcCode, f.errCode)
	cs.try(srcType, f.errType)
	cs.try(srcInner, f.innerCode)
	cs.try(srcCode, f.topCode)
	cs.try(srcType, f.topType)
	cs.try(srcStatus, f.errStatus)
	n := len(mainPhrases.list)
	best := n
	if f.parsed {
		for i := 0; i < f.nTexts; i++ {
			best = mainPhrases.best(f.texts[i], best)
		}
	} else {
		best = mainPhrases.best(body, best)
	}
	if best < n && mainPhrases.list[best].notRate && def == RateLimited {
		best = n // "too many tokens" from a throttle is not about the window
	}
	if cs.strongEv != "" {
		// A model "not found" for a project that lacks access to it is
		// access not granted, not a gone model.
		if cs.strong == Unavailable && best < n && mainPhrases.list[best].class == Forbidden {
			p := &mainPhrases.list[best]
			return Verdict{Failed: true, Class: p.class, Evidence: p.evidence}
		}
		return Verdict{Failed: true, Class: cs.strong, Evidence: cs.strongEv}
	}
	if def == RateLimited || (best < n && (mainPhrases.list[best].class == Quota || mainPhrases.list[best].class == RateLimited)) {
		switch metricPeriod(f) {
		case Quota:
			return Verdict{Failed: true, Class: Quota, Evidence: "quota-metric:per_day"}
		case RateLimited:
			return Verdict{Failed: true, Class: RateLimited, Evidence: "quota-metric:per_minute"}
		}
	}

	rateish := def == RateLimited || (best < n && mainPhrases.list[best].class == RateLimited)
	if best > overflowRank && rateish && requestOverLimit(f, body) {
		return Verdict{Failed: true, Class: Overflow, Evidence: "phrase:requested>limit"}
	}
	// A capability gap ("does not support tools") is a phrase of class
	// unknown: it outranks the weak codes and keeps lower bad-input phrases
	// from deciding, but a named param still proves bad input.
	capability := false
	if best < n {
		p := &mainPhrases.list[best]
		switch {
		case p.class == Unknown:
			capability = true
		case !p.badInput || def == Unknown:
			return Verdict{Failed: true, Class: p.class, Evidence: p.evidence}
		}
	}

	// A generic provider-failure family (api_error, internal) in a 4xx does
	// not make the answer a server error: that would let a client's request
	// count against the endpoint. It stays what the status says.
	providerSide := cs.weak == ServerError || cs.weak == Timeout
	if cs.weakEv != "" && !capability && (!providerSide || def == ServerError || def == Timeout) {
		return Verdict{Failed: true, Class: cs.weak, Evidence: cs.weakEv}
	}
	if def == Unknown {
		switch {
		case len(f.param) > 0:
			return Verdict{Failed: true, Class: BadRequest, Evidence: "openai:param"}
		case f.fieldViolations:
			return Verdict{Failed: true, Class: BadRequest, Evidence: "gemini:fieldViolations"}
		case f.detailLoc:
			return Verdict{Failed: true, Class: BadRequest, Evidence: "detail:loc"}
		case f.nTexts > 0 && fieldPathPrefix(f.texts[0]):
			return Verdict{Failed: true, Class: BadRequest, Evidence: "message:field-path"}
		}
	}
	if capability {
		return Verdict{Failed: true, Class: Unknown, Evidence: mainPhrases.list[best].evidence}
	}
	return Verdict{Failed: true, Class: def, Evidence: defEv}
}

// codeScan keeps the first strong and the first weak code seen.
type codeScan struct {
	allowBad         bool
	strong, weak     Class
	strongEv, weakEv string
}

func (cs *codeScan) try(src codeSource, v []byte) {
	if cs.strongEv != "" || len(v) == 0 {
		return
	}
	r, ev, ok := lookupCode(src, v)
	switch {
	case !ok, r.badInput && !cs.allowBad:
	case r.strong:
		cs.strong, cs.strongEv = r.class, ev
	case cs.weakEv == "":
		cs.weak, cs.weakEv = r.class, ev
	}
}

// overflowRank is the priority of the first phrase below the overflow group:
// when the best phrase found ranks there or lower, a request larger than its
// per-minute limit still decides overflow.
var overflowRank = func() int {
	for i, p := range mainPhrases.list {
		if p.class == Overflow {
			for j := i; j < len(mainPhrases.list); j++ {
				if mainPhrases.list[j].class != Overflow {
					return j - 1
				}
			}
		}
	}
	return len(mainPhrases.list)
}()

// requestOverLimit reports a rate-limit message whose request alone exceeds
// the limit: "Limit 7000, Used 0, Requested ~12903" (Groq, OpenAI TPM).
func requestOverLimit(f *facts, body []byte) bool {
	if !f.parsed {
		return overLimit(body)
	}
	for i := 0; i < f.nTexts; i++ {
		if overLimit(f.texts[i]) {
			return true
		}
	}
	return false
}

func overLimit(t []byte) bool {
	return limitRequested(t) || actualOverLimit(t)
}

// limitRequested reads "Limit 7000, Used 0, Requested ~12903".
func limitRequested(t []byte) bool {
	var limit int64
	i := 0
	for {
		k := indexFold(t[i:], "limit ")
		if k < 0 {
			return false
		}
		i += k + len("limit ")
		if n, ok := number(t[i:]); ok {
			limit = n
			break
		}
	}
	j := indexFold(t[i:], "requested ")
	if j < 0 {
		return false
	}
	rest := t[i+j+len("requested "):]
	if len(rest) > 0 && rest[0] == '~' {
		rest = rest[1:]
	}
	req, ok := number(rest)
	return ok && limit > 0 && req > limit
}

// actualOverLimit reads "(actual/limit): 65605/16000" (xAI). The window held
// less than the limit before this request, so a total above twice the limit
// means this request alone is over it.
func actualOverLimit(t []byte) bool {
	k := indexFold(t, "actual/limit)")
	if k < 0 {
		return false
	}
	rest := trimLeft(t[k+len("actual/limit)"):])
	if len(rest) == 0 || rest[0] != ':' {
		return false
	}
	rest = trimLeft(rest[1:])
	actual, ok := number(rest)
	if !ok {
		return false
	}
	i := 0
	for i < len(rest) && (rest[i] >= '0' && rest[i] <= '9' || rest[i] == ',') {
		i++
	}
	if i >= len(rest) || rest[i] != '/' {
		return false
	}
	limit, ok := number(rest[i+1:])
	return ok && limit > 0 && actual > 2*limit
}

// metricPeriod reads the period of a Google quota metric named in a message
// ("Quota exceeded for aiplatform.googleapis.com/generate_content_requests_
// per_minute_per_project_per_base_model"): Quota for a day or longer,
// RateLimited for a minute or a second, Unknown when it names none.
func metricPeriod(f *facts) Class {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		k := indexFold(t, "googleapis.com/")
		if k < 0 {
			continue
		}
		m := t[k+len("googleapis.com/"):]
		j := 0
		for j < len(m) && (wordTab[m[j]] == 1 && m[j] < 0x80 || m[j] == '_' || m[j] == '.' || m[j] == '-') {
			j++
		}
		m = m[:j]
		switch {
		case containsFold(m, "per_day"), containsFold(m, "per_month"):
			return Quota
		case containsFold(m, "per_minute"), containsFold(m, "per_second"):
			return RateLimited
		}
	}
	return Unknown
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

// fieldPathPrefix reports a message that begins by naming a request field:
// "max_tokens: 10000 > 4096…", "messages.1.content: …", "messages: roles…".
func fieldPathPrefix(t []byte) bool {
	if len(t) > 2 && t[0] == '*' && t[1] == ' ' { // Gemini: "* GenerateContentRequest.contents: …"
		t = t[2:]
	}
	i := 0
	dotted := false
	for i < len(t) && i < 256 { // Gemini's schema paths run long
		c := t[i]
		if c == '_' || c == '.' || c == '[' || c == ']' {
			dotted = true
		} else if wordTab[c] == 0 || c >= 0x80 {
			break
		}
		i++
	}
	if i == 0 || i >= len(t) || t[i] != ':' {
		return false
	}
	if dotted {
		return true
	}
	switch string(t[:i]) {
	case "messages", "model", "system", "tools", "temperature", "metadata", "stream",
		"thinking", "contents", "prompt", "input", "stop", "n":
		return true
	}
	return false
}
