package classify

import "net/http"

// decide refines a status default with what the body (and the AWS error-type
// header) says. req is the client's request body: text found in it is no
// evidence (echo.go). The order is the precedence (docs/behaviour.md#classes):
//
//  1. Gemini QuotaFailure periods: a per-day (or longer) quotaId is quota, a
//     per-minute one alone is rate_limited, whatever the message says.
//
//  2. Strong codes (invalid_api_key, insufficient_quota, model_not_found,
//     context_length_exceeded, content_filter, API_KEY_INVALID,
//     UnrecognizedClientException, …), in source order.
//
//  3. The period of a Google quota metric named in the message
//     (…googleapis.com/…_per_minute_…), read like a quotaId, where the
//     answer speaks of quota or rate at all; a metric that names no day or
//     month period is a short one; likewise a window named in the words
//     ("60/60 requests in 1m window": under an hour rate_limited, a day or
//     more quota).
//
//  4. Phrases in the human texts (the whole body when it is not JSON), by
//     the priority of mainPhrases, skipping any whose matched text the
//     client sent (echoed) and, where structure says the answer is about
//     one request field (a param, a bad-input code), the account-scoped
//     ones (quota, auth), and where a param names a field other than
//     `model`, the gone-model ones too (unavailable); then "Limit N … Requested M" with M > N, or
//     "(actual/limit): A/L" or "current: A, limit: L" with A > 2L, a single
//     request larger than a per-minute cap, is overflow. A capability gap
//     ("does not support tools") is a phrase of class unknown: it outranks
//     the weak codes and the bad-input phrases below it, but structure
//     (step 7) still decides. Overload wording (a server_error phrase) on
//     a 429 whose weak code names a rate limit itself (rate_limit_error,
//     too_many_requests; not RESOURCE_EXHAUSTED) is that code's
//     rate_limited, as the words "rate limit" outrank it. Wording that names nothing ("invalid
//     argument") is unknown too where the status says nothing (a 400, an
//     error in a 2xx), but lets a weak or bad-input code decide.
//
//  5. A bad-input code together with the param it names (invalid_value,
//     messages[0].role) is bad_request whatever the status default; so is,
//     where a phrase was discarded (echoed, or account wording next to a
//     named field), any structural evidence of bad input (a param, a
//     bad-input code, Gemini fieldViolations, detail[].loc, a message that
//     begins with a field path): the body is about the client's input.
//
//  6. Weak codes (rate_limit_error, overloaded_error, RESOURCE_EXHAUSTED, …).
//
//  7. Structural evidence of bad input — only where the status default is
//     unknown, as are bad-input phrases and codes.
//
//  8. The status default.
//
//  9. Past all of these, a not-found verdict (unavailable from a 404 or a
//     weak not-found code; unknown with not-found wording) whose message
//     names something the client's request names, other than the model
//     Detour sent, is bad_request (notfound.go); so is any unavailable
//     verdict (a strong gone-model code too) whose message names, after
//     the word "model", a model other than Detour's that the client's
//     request holds in another member (clientmodel.go).
//
//  10. A router's words about the providers it may use ("No allowed
//     providers are available", "matching your data policy") to a request
//     that carries routing preferences of its own (OpenRouter's top-level
//     "provider"; carriesRouting) are bad_request: the client's choice.
//
// A verdict reached after an echoed phrase was discarded carries "+echo" in
// its evidence.
func decide(def Class, defEv string, h http.Header, body []byte, f *facts, req []byte, model string) Verdict {
	if f.perDay {
		return Verdict{Failed: true, Class: Quota, Evidence: "gemini:quotaId=PerDay"}
	}
	if f.perMinute {
		if f.tokenCap > 0 && requestTokensAbove(req, f.tokenCap) {
			// An input-token allowance this request's own text is over
			// (minutecap.go): no minute lets it through.
			return Verdict{Failed: true, Class: Overflow, Evidence: "gemini:request>quotaValue"}
		}
		return Verdict{Failed: true, Class: RateLimited, Evidence: "gemini:quotaId=PerMinute"}
	}

	if v, ok := oauthVerdict(defEv, f, req); ok {
		return v
	}
	if v, ok := negativeRoom(f, req); ok {
		return v
	}
	cs := codeScan{req: req}
	cs.allowBad = def == Unknown
	cs.scan(h, f)
	// An account's money or key is never a property of one request field:
	// where structure names the field, quota or auth wording is that field's
	// content (docs/design.md, "Structured fields first"). A param that
	// names nothing the request carries is a category ("param":"quota"),
	// not a field (namesField).
	var skip classMask
	field := namesField(f, req)
	if field || cs.badEv != "" {
		skip = 1<<Quota | 1<<Auth
	}
	// Likewise a gone-model wording is about the endpoint only where the
	// named field is the model Detour sent: with a param naming another
	// field (a tool's own model), it is that field's value. (Access wording
	// beside a param keeps its class: an account that may not stream a
	// model, or use a tier, is the account's state.)
	if field && string(f.param) != "model" {
		skip |= 1 << Unavailable
	}
	// The same where the message opens with the path of a model inside
	// another member ("tools.16.model: Claude Fable 5 is not available";
	// round 66): the path is the param, in the message's own words, also
	// after a relay's labels or in the upstream's body a router relays.
	if nestedModelText(f, req) {
		skip |= 1 << Unavailable
	}
	// A request that carries a credential of its own for someone else (a
	// data source's key, a remote connector's token): credential and access
	// wording may be about that one, which the client controls (notfound.go,
	// carriesCredential). A provider's own codes and the status still decide.
	if carriesCredential(req) {
		skip |= 1<<Auth | 1<<Forbidden // "Access denied due to invalid subscription key" of the client's search service
	}
	ts := textScan{f: f, body: bodyText(f, body), raw: body, req: req, model: model, rate: def == RateLimited}
	n := len(mainPhrases.list)
	best := ts.pick(mainPhrases, skip)
	if best < n && mainPhrases.list[best].notRate && !ts.rate {
		// A notRate wording ("too many tokens", "input token count …
		// exceeds") in an answer that names a throttle itself, by a rate
		// code (Bedrock's ThrottlingException) or in the words a 429 reads
		// past it ("Tokens per minute limit exceeded - too many tokens
		// processed."), is the throttle's wording at any status, as at a
		// 429: AWS and relays send throttles as 400s too (probe 65b: read
		// context_length, the client got "prompt too long" and the walk
		// stood still).
		alt := ts
		alt.rate = true
		if b := alt.pick(mainPhrases, skip); cs.weak == RateLimited || (b < n && mainPhrases.list[b].class == RateLimited) {
			ts, best = alt, b
		}
	}
	// A gone-model code beside a param naming another field (a tool's own
	// model) is that field's, as the gone-model wording is (skip above).
	if cs.strong == Unavailable && skip.has(Unavailable) {
		cs.strong, cs.strongEv = Unknown, ""
	}
	if cs.strongEv != "" {
		// A model "not found" for a project that lacks access to it is
		// access not granted, not a gone model; a relay that stamps every
		// 404 model_not_found ("No active credentials for provider: x")
		// says what failed in its words.
		if cs.strong == Unavailable && best < n && (mainPhrases.list[best].class == Forbidden || mainPhrases.list[best].class == Auth) {
			p := &mainPhrases.list[best]
			return ts.featureGated(Verdict{Failed: true, Class: p.class, Evidence: p.evidence})
		}
		// A model "not found" at this API only ("The requested model 'x'
		// is not supported with the Responses API", code model_not_found):
		// the door the client chose, not a gone model (docs/behaviour.md).
		if cs.strong == Unavailable && best < n && mainPhrases.list[best].door {
			return Verdict{Failed: true, Class: Unknown, Evidence: mainPhrases.list[best].evidence}
		}
		if (cs.strong == Unavailable || cs.strong == Forbidden) && ts.modelNamed() {
			return echoMark(Verdict{Failed: true, Class: BadRequest, Evidence: notFoundEvidence}, ts.echo)
		}
		return Verdict{Failed: true, Class: cs.strong, Evidence: cs.strongEv}
	}
	if def == RateLimited || (best < n && (mainPhrases.list[best].class == Quota || mainPhrases.list[best].class == RateLimited)) {
		long, short := ts.metricPeriod()
		if long {
			return Verdict{Failed: true, Class: Quota, Evidence: "quota-metric:per_day"}
		}
		if short {
			if ev := ts.overLimitEvidence(); ev != "" {
				return Verdict{Failed: true, Class: Overflow, Evidence: ev}
			}
			return Verdict{Failed: true, Class: RateLimited, Evidence: "quota-metric:per_minute"}
		}
		// A window decides between a throttle and a spent allowance only:
		// not over stronger words (a balance too low, a bad key), nor
		// where one request is over the window's whole limit (overflow).
		if best == n || mainPhrases.list[best].class == RateLimited || mainPhrases.list[best].weak {
			if long, short = ts.windowPeriod(); long {
				return Verdict{Failed: true, Class: Quota, Evidence: "window:day-or-more"}
			} else if short && !ts.requestOverLimit() {
				return Verdict{Failed: true, Class: RateLimited, Evidence: "window:minutes-or-seconds"}
			}
			// A window named by a member ("window_type":"five_hour"), read
			// as its prose ("5 hour usage limit", "daily limit"): whatever
			// shorter wait the answer names, but not over a minute's or a
			// second's words.
			if best == n || !shortPeriod(mainPhrases.list[best].evidence) {
				if long, short, ev := ts.windowMember(); long {
					return Verdict{Failed: true, Class: Quota, Evidence: ev}
				} else if short && !ts.requestOverLimit() {
					return Verdict{Failed: true, Class: RateLimited, Evidence: ev}
				}
			}
		}
	}
	// A spent allowance worded loosely ("Free usage exceeded") with a
	// minute's or a second's word beside it ("… for this minute", "retry
	// after 30 seconds"), or a Retry-After under an hour, is the throttle
	// those say (round 53).
	if best < n && mainPhrases.list[best].shortWins {
		if i := ts.pick(shortWords, 0); i < len(shortWords.list) {
			return echoMark(Verdict{Failed: true, Class: RateLimited, Evidence: shortWords.list[i].evidence}, ts.echo)
		}
		if ra := ParseRetryAfter(h, now()); ra > 0 && ra < longWait {
			return echoMark(Verdict{Failed: true, Class: RateLimited, Evidence: "retry-after<1h"}, ts.echo)
		}
	}
	if def == Unknown && best == n && !skip.has(Auth) && ts.bareWord("unauthorized") {
		return Verdict{Failed: true, Class: Auth, Evidence: "message:unauthorized"}
	}
	// Amazon API Gateway's usage-plan quota spent (its QUOTA_EXCEEDED
	// gateway response, a 429 {"message":"Limit Exceeded"}), where its
	// throttle (THROTTLED) says "Too Many Requests": the words whole, so
	// "Rate limit exceeded" and a sentence holding them are untouched.
	if def == RateLimited && best == n && cs.weakEv == "" && !skip.has(Quota) && ts.bareWord("limit exceeded") {
		return Verdict{Failed: true, Class: Quota, Evidence: "message:Limit Exceeded"}
	}
	if def == Unknown && (best == n || mainPhrases.list[best].badInput || mainPhrases.list[best].class == Unknown) && toolTypeVariant(f) {
		return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: "tools[].type:variant"}, ts.echo)
	}
	if def == Unknown && (best == n || mainPhrases.list[best].badInput || mainPhrases.list[best].class == Unknown) && datedToolTag(f, req) {
		return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: "tools[].type:dated-tag"}, ts.echo)
	}
	if def == Unknown && (best == n || mainPhrases.list[best].badInput || mainPhrases.list[best].class == Unknown) {
		// A server's copy of the Chat Completions API that lags (round
		// 54b, lagmember.go): a top-level member, a tool type, a
		// tool_choice type, or n above 1 that the API documents and this
		// server lacks.
		switch {
		case modelRefusesDelivery(f, req) != "":
			// OpenAI's unsupported_value for stream or a message's role
			// "with this model" (round 54c, capgap.go): a capability gap.
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: modelRefusesDelivery(f, req)}, ts.echo)
		case lagMemberRefused(f, req):
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: "detail:extra_forbidden=chat-member"}, ts.echo)
		case toolTypeLiteralDetail(f, req) || toolTypeLiteral(f, req):
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: "tools[].type:literal"}, ts.echo)
		case toolChoiceMemberLag(f, req) || toolChoiceTypeLag(f, req):
			// The Messages API's twin (round 55, lagmessages.go): a
			// documented tool_choice member or type refused.
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: "tool_choice:messages-member"}, ts.echo)
		case toolChoiceNoFunction(f, req):
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: "tool_choice:no-function"}, ts.echo)
		case nAtMostOne(f, req):
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: "n:at-most-1"}, ts.echo)
		}
	}
	if best == n && def != RateLimited {
		// A media count worded only as a limit, read where nothing else
		// spoke (endingMediaPhrases).
		if i := ts.pick(endingMediaPhrases, skip); i < len(endingMediaPhrases.list) {
			return echoMark(Verdict{Failed: true, Class: Overflow, Evidence: endingMediaPhrases.list[i].evidence}, ts.echo)
		}
	}
	v := ts.refine(def, defEv, best, &cs)
	scoped := best < n && mainPhrases.list[best].scoped && v.Evidence == mainPhrases.list[best].evidence
	if best < n && mainPhrases.list[best].routing && v.Evidence == mainPhrases.list[best].evidence && carriesRouting(ts.req) {
		// A router that no provider it may use can serve, because the
		// client's own preferences allow none ("provider": {"only": […]},
		// {"zdr": true}): the client's choice, which no other target
		// honours — stop, cool nothing (review 61c: one request cooled
		// OpenRouter for a day, for everyone).
		v = Verdict{Failed: true, Class: BadRequest, Evidence: v.Evidence + "+client-routing"}
	} else if ok, ev := ts.clientScoped(v, def, defEv, &cs, scoped); ok {
		v = Verdict{Failed: true, Class: BadRequest, Evidence: ev}
	} else if (v.Class == Unavailable || v.Class == Forbidden) && ts.modelNamed() {
		v = Verdict{Failed: true, Class: BadRequest, Evidence: notFoundEvidence}
	} else if v.Class == Forbidden {
		v = ts.featureGated(v)
	}
	if ts.echo {
		v.Evidence += "+echo"
	}
	return v
}

// refine is decide past the strong codes: phrases, weak codes, structure,
// the status default.
func (ts *textScan) refine(def Class, defEv string, best int, cs *codeScan) Verdict {
	f, n := ts.f, len(mainPhrases.list)
	rateish := def == RateLimited || (best < n && mainPhrases.list[best].class == RateLimited)
	if best > overflowRank && rateish {
		if ev := ts.overLimitEvidence(); ev != "" {
			return Verdict{Failed: true, Class: Overflow, Evidence: ev}
		}
		if v, ok := ts.zeroCap(); ok {
			return v
		}
	}
	capability, vague, ofPath := false, false, false
	if best < n {
		p := &mainPhrases.list[best]
		switch {
		case p.class == ServerError && def == RateLimited && cs.weak == RateLimited && namesRateLimit(cs.weakEv):
			// A 429 whose own type or code says rate limit is one beside
			// overload wording, as the words "rate limit" beside it are:
			// the upstream's Retry-After is kept (docs/behaviour.md).
			return Verdict{Failed: true, Class: RateLimited, Evidence: cs.weakEv}
		case p.class == Unknown && p.overParam:
			return Verdict{Failed: true, Class: Unknown, Evidence: p.evidence}
		case p.class == Unknown:
			capability, vague, ofPath = true, p.vague, p.ofPath
		case !p.badInput || def == Unknown:
			return Verdict{Failed: true, Class: p.class, Evidence: p.evidence}
		}
	}
	if vague && def != Unknown && def != ServerError {
		// Wording that names nothing only keeps a silent status (a 400, an
		// error in a 2xx) from deciding; a 429 or a 403 still says more.
		capability = false
	}
	// A bad-input code naming its field proves bad input in any status; a
	// bad-input code about "model" is about the model Detour wrote ("This
	// model requires that either input content or output modality contain
	// audio", invalid_value): no proof at all.
	if len(f.param) > 0 && !clientParam(f) && cs.weak == BadRequest {
		cs.weak, cs.weakEv, cs.badEv = Unknown, "", ""
	}
	if cs.badEv != "" && clientParam(f) {
		return Verdict{Failed: true, Class: BadRequest, Evidence: cs.badEv}
	}
	if ts.echo || ts.field {
		if ev := badInputProof(f, cs); ev != "" {
			return Verdict{Failed: true, Class: BadRequest, Evidence: ev}
		}
	}

	// A generic provider-failure family (api_error, internal) in a 4xx does
	// not make the answer a server error: that would let a client's request
	// count against the endpoint. It stays what the status says.
	providerSide := cs.weak == ServerError || cs.weak == Timeout
	// A weak code that says only "unknown" (Bedrock's ValidationException)
	// says no more than a silent status: the structure below may still
	// prove the client's bad input ("messages.4.content: …").
	silent := cs.weak == Unknown && def == Unknown && structureProof(f) != ""
	if cs.weakEv != "" && (!capability || vague) && (!providerSide || def == ServerError || def == Timeout) && !silent {
		return Verdict{Failed: true, Class: cs.weak, Evidence: cs.weakEv}
	}
	if def == Unknown {
		// A field path met inside the message, not at its start, is the
		// weakest structure: a capability gap that names its path ("…
		// errors: messages.0.content.1.image: This model does not support
		// image input") is still a gap, which the next target may not have;
		// so is one that opens the message where the words say the gap is
		// in what the path names (ofPath: Gemini's schema subset), where
		// every line says so (ofPathLines).
		// So is a gap the sentence after the path says is this model's
		// and nothing else's (modelGapAfterPath), where no bad-input code
		// speaks.
		if ev := structureProof(f); ev != "" && !(capability && !vague && (ev == "openai:param" || ev == "message:field-path" && (ofPath && ofPathLines(f.texts[0]) || !fieldPathPrefix(f.texts[0]) || cs.badEv == "" && modelGapAfterPath(f.texts[0], ts.req)))) {
			return Verdict{Failed: true, Class: BadRequest, Evidence: ev}
		}
	}
	if capability {
		return Verdict{Failed: true, Class: Unknown, Evidence: mainPhrases.list[best].evidence}
	}
	return Verdict{Failed: true, Class: def, Evidence: defEv}
}

// overflowRank is the priority of the last phrase of the overflow group (the
// last overflow phrase of the list; the batch caps ranked above the context
// window are not that group): when the best phrase found ranks below it, a
// request larger than its per-minute limit still decides overflow.
var overflowRank = func() int {
	for i := len(mainPhrases.list) - 1; i >= 0; i-- {
		if mainPhrases.list[i].class == Overflow {
			return i
		}
	}
	return len(mainPhrases.list)
}()

// bareWord reports whether some text of the answer is the word w and
// nothing else, as a relay passes it on: after its labels (relayLabel:
// "[groq] ", "litellm.APIError: ", an opening quote) and before what it
// appends (one-api's "(request id: …)", LiteLLM's "Received Model
// Group=…"), blanks, quotes and a full stop aside. Cloudflare AI Gateway
// answers a rejected gateway token with {"code":2009,"message":
// "Unauthorized"} as a 400: the status's reason phrase as the whole
// message is the credential Detour sends (auth), where a sentence holding
// the word ("Unauthorized to access MCP server 'docs'", "Failed to fetch
// https://…: 401 Unauthorized") may be about anything the client named.
// Words the client's request holds are no evidence (echo.go).
func (ts *textScan) bareWord(w string) bool {
	for i := 0; i < ts.texts(); i++ {
		t := ts.text(i)
		t = ownWords(t[relayLabel(t):])
		if k := indexFold(t, "(request id:"); k >= 0 {
			t = t[:k]
		}
		s, e := 0, len(t)
		for s < e && bareTrim(t[s]) {
			s++
		}
		for e > s {
			switch {
			case bareTrim(t[e-1]):
				e--
				continue
			case e-s >= 2 && t[e-2] == '\\' && (t[e-1] == 'n' || t[e-1] == 'r' || t[e-1] == 't'):
				e -= 2 // an escaped line break
				continue
			}
			break
		}
		if e-s == len(w) && indexFold(t[s:e], w) == 0 && (len(ts.req) == 0 || !echoed(ts.req, t[s:e])) {
			return true
		}
	}
	return false
}

// bareTrim reports a byte a relay may leave around a bare word: blanks,
// quotes, a full stop.
func bareTrim(c byte) bool {
	switch c {
	case ' ', '\t', '\n', '\r', '"', '\'', '.', '\\':
		return true
	}
	return false
}

// shortWords name a window of minutes or seconds in any sentence of an
// answer: with a shortWins phrase, the throttle's.
var shortWords = newPhraseSet([]phrase{
	{a: "minute", word: true, class: RateLimited},
	{a: "minutes", word: true, class: RateLimited},
	{a: "second", word: true, class: RateLimited},
	{a: "seconds", word: true, class: RateLimited},
	{a: "分钟", class: RateLimited},
	{a: "秒", class: RateLimited},
})
