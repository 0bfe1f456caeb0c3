package classify

import (
	"bytes"
	"net/http"
	"strings"
)

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
			return Verdict{Failed: true, Class: p.class, Evidence: p.evidence}
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
	if best > overflowRank && rateish && ts.requestOverLimit() {
		return Verdict{Failed: true, Class: Overflow, Evidence: "phrase:requested>limit"}
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
		if ev := structureProof(f); ev != "" && !(capability && !vague && (ev == "openai:param" || ev == "message:field-path" && (ofPath && ofPathLines(f.texts[0]) || !fieldPathPrefix(f.texts[0])))) {
			return Verdict{Failed: true, Class: BadRequest, Evidence: ev}
		}
	}
	if capability {
		return Verdict{Failed: true, Class: Unknown, Evidence: mainPhrases.list[best].evidence}
	}
	return Verdict{Failed: true, Class: def, Evidence: defEv}
}

// ofPathLines reports whether every line of the message t that opens with
// a field path holds an ofPath phrase: Gemini lists each member it refuses
// on a line of its own, and one listed beside the schema subset for words
// of its own ("* GenerateContentRequest.contents[1].parts: contents.parts
// must not be empty") is bad input that no other target serves either
// (review 43h). A line a relay adds ("Received Model Group=…") is no path.
func ofPathLines(t []byte) bool {
	for len(t) > 0 {
		i, w := lineBreak(t)
		if i < 0 {
			i, w = len(t), 0
		}
		if line := bytes.TrimLeft(t[:i], " \t"); fieldPathPrefix(line) && !ofPathLine(line) {
			return false
		}
		t = t[i+w:]
	}
	return true
}

// ofPathLine reports whether line holds one of the ofPath phrases.
func ofPathLine(line []byte) bool {
	for i := range inputPhrases {
		if p := &inputPhrases[i]; p.ofPath && containsFold(line, p.a) {
			return true
		}
	}
	return false
}

// clientParam reports a param that may name the client's input: any but
// "model", the member Detour writes itself (the endpoint's model), which
// proves nothing of the client's request, nor does a bad-input code beside
// it (docs/behaviour.md, "bad_request needs proof"); nor "/", a JSON
// Pointer at the whole payload (Azure AI Foundry's invalid_payload), which
// names no member.
func clientParam(f *facts) bool {
	return len(f.param) > 0 && !eq(f.param, "model") && !eq(f.param, "/")
}

// structureProof names the structural evidence of bad input in f, "" for none.
func structureProof(f *facts) string {
	switch {
	case clientParam(f):
		return "openai:param"
	case f.fieldViolations:
		return "gemini:fieldViolations"
	case f.detailLoc:
		return "detail:loc"
	case f.fieldErrors:
		return "zod:_errors"
	case f.nTexts > 0 && (fieldPathPrefix(f.texts[0]) || rootedFieldPath(f.texts[0]) || labelledFieldPath(f.texts[0])):
		return "message:field-path"
	case f.nTexts > 0 && bodyLoc(f.texts[0]):
		return "message:loc"
	case relayedFieldPath(f):
		return "message:field-path"
	}
	return ""
}

// labelledFieldPath reports a message that opens with a field path after a
// relay's labels ("upstream error: '$.input' is invalid", relayLabel). It is
// relayed, so, like a path inside the message, it does not outweigh a
// capability gap the message states (refine).
func labelledFieldPath(t []byte) bool {
	k := relayLabel(t)
	return k > 0 && fieldPathPrefix(t[k:])
}

// relayedFieldPath reports a request-rooted, indexed field path followed by
// a colon in a text after the first: the upstream's own field error relayed
// by a router beside its own words (OpenRouter's "Provider returned error"
// with the upstream's body in metadata.raw).
func relayedFieldPath(f *facts) bool {
	for i := 1; i < f.nTexts; i++ {
		if rootedFieldPath(f.texts[i]) {
			return true
		}
	}
	return false
}

// badInputProof is structureProof or a bad-input code.
func badInputProof(f *facts, cs *codeScan) string {
	if ev := structureProof(f); ev != "" {
		return ev
	}
	return cs.badEv
}

// codeScan keeps the first strong and the first weak code seen, and the
// first bad-input code whether or not it may decide (badEv).
type codeScan struct {
	// req is the client's request: a code that would cool or page which
	// the request holds as a member's value is the client's, not the
	// upstream's (valueEchoed).
	req              []byte
	allowBad         bool
	strong, weak     Class
	strongEv, weakEv string
	badEv            string
}

// scan tries every code of h and f in source order.
func (cs *codeScan) scan(h http.Header, f *facts) {
	if vs := h["X-Amzn-Errortype"]; len(vs) > 0 {
		if len(h["X-Amz-Apigw-Id"]) > 0 && strings.HasPrefix(vs[0], "MissingAuthenticationToken") {
			// AWS API Gateway's answer for a path or method it does not
			// route, its most common cause: the door the client chose
			// (/v1/embeddings where only chat is routed), never a key it
			// checked. Not auth; the walk moves on and nothing cools.
			cs.strong, cs.strongEv = Unknown, "apigateway:MissingAuthenticationToken"
			return
		}
		cs.try(srcAmzHeader, []byte(vs[0]))
	}
	cs.try(srcAmzHeader, f.amzType)
	// Envoy AI Gateway relays Bedrock's x-amzn-errortype value, suffix
	// and all, as the error's type (its converse translator; hunt 62g).
	// Not its not-found: whose resource it is, "Not found: whose?" says
	// (review 62k: a file the client named cooled the endpoint).
	if bytes.Contains(f.errType, []byte("Exception")) && !bytes.HasPrefix(f.errType, []byte("ResourceNotFound")) {
		cs.try(srcAmzHeader, f.errType)
	}
	for i := 0; i < f.nReasons; i++ {
		cs.try(srcReason, f.reasons[i])
	}
	// Where an upstream's answer is known to carry the client's text — an
	// error's details, a router's annotations — a code is read only where
	// the request does not hold it as a value (tryUnechoed); at the top
	// level of the answer, only where the request's own top level does not
	// (tryTop: a server that answers {**request, "error": …}). The error
	// object's own code and type are the upstream's, and a flat envelope's
	// top-level code is too: an agent's earlier failure deep in its
	// history, the same code with other ids, must not hide a relay's quote
	// of the real one (review 46a).
	cs.tryUnechoed(srcDetail, f.detailCode)
	cs.tryUnechoed(srcRouterAvail, f.routerAvail)
	cs.tryUnechoed(srcRouterType, f.routerType)
	cs.try(srcCode, f.errCode)
	cs.try(srcType, f.errType)
	cs.try(srcInner, f.innerCode)
	cs.tryTop(srcCode, f.topCode, f.topCodeIn)
	cs.tryTop(srcType, f.topType, "type")
	cs.try(srcStatus, f.errStatus)
	cs.try(srcBaseResp, f.baseCode)
}

// try reads the code v, found in the body at src.
func (cs *codeScan) try(src codeSource, v []byte) {
	if cs.strongEv != "" || len(v) == 0 {
		return
	}
	cs.take(lookupCode(src, v))
}

// tryUnechoed is try for a code where upstreams are known to quote the
// client's request: one whose class would cool or page (codeEchoGuarded)
// is no evidence where the request holds it as a member's value
// (valueEchoed). Round 62 compared the request's raw bytes, so an escape
// (error\u005fcode), another letter case or a tool call's arguments (JSON
// in a string) got past it, and one client's text cooled an account for
// everyone (review 63a).
func (cs *codeScan) tryUnechoed(src codeSource, v []byte) {
	if cs.strongEv != "" || len(v) == 0 {
		return
	}
	r, ev, ok := lookupCode(src, v)
	if ok && codeEchoGuarded(r.class) && valueEchoed(cs.req, v) {
		return
	}
	cs.take(r, ev, ok)
}

// tryTop is try for a code read in the answer's top-level member name
// (the code itself, or an object or a list holding it: errors[].code,
// detail.code): one whose class would cool or page is no evidence where
// the request's own top-level member of that name holds it (topValueIs;
// review 63j: a guard on "code" alone left "error_code", "reason",
// "errors" and "detail" to the client). A Responses server
// that builds its answer from the request ({**request, "error": …}) wrote
// the client's "code": "insufficient_quota" where a flat envelope's code
// stands, and one client cooled the account for everyone (review 63a).
func (cs *codeScan) tryTop(src codeSource, v []byte, name string) {
	if cs.strongEv != "" || len(v) == 0 {
		return
	}
	r, ev, ok := lookupCode(src, v)
	if ok && codeEchoGuarded(r.class) && topValueIs(cs.req, name, v) {
		return
	}
	cs.take(r, ev, ok)
}

// take keeps the code rule r (found: ok) with evidence ev.
func (cs *codeScan) take(r codeRule, ev string, ok bool) {
	if ok && r.badInput && cs.badEv == "" {
		cs.badEv = ev
	}
	switch {
	case !ok, r.badInput && !cs.allowBad:
	case r.strong:
		cs.strong, cs.strongEv = r.class, ev
	case cs.weakEv == "":
		cs.weak, cs.weakEv = r.class, ev
	}
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

// namesRateLimit reports whether a weak code's evidence names a rate limit
// itself (rate_limit_error, rate_limit_exceeded, too_many_requests,
// ThrottlingException, Google's RATE_LIMIT_EXCEEDED reason), not a generic family that also covers the
// provider's own capacity (RESOURCE_EXHAUSTED).
func namesRateLimit(ev string) bool {
	for _, w := range [...]string{"rate_limit", "ratelimit", "too_many", "toomany", "throttl"} {
		if hasFold(ev, w) {
			return true
		}
	}
	return false
}

// toolTypeVariant reports a schema's refusal of a tool's type, a tag its
// union does not have ("Invalid discriminator value. Expected 'function' |
// 'mcp'" with param "tools.6.type", LM Studio's Responses API given Codex's
// other tool types): the types beside function are each vendor's own, so
// another target may serve it — the gap xAI words as "tools[55].type:
// unknown variant `x_search`" (phrasesinput.go). The path is the param, or
// opens a text ("tools.6.type: Invalid discriminator value"). Any other
// member's tag (a message's role, a content part's type) stays bad input.
func toolTypeVariant(f *facts) bool {
	path := toolTypeLen(f.param) == len(f.param) && len(f.param) > 0
	said := false
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if !containsFold(t, "discriminator") && !containsFold(t, "unknown variant") {
			continue
		}
		said = true
		if k := toolTypeLen(t); k > 0 && k < len(t) && t[k] == ':' {
			path = true
		}
	}
	return said && path
}

// datedToolTag reports Anthropic's schema refusing a dated hosted-tool
// type at a tool ("tools.0: Input tag 'computer_20250124' found using
// 'type' does not match any of the expected tags: 'bash_20250124',
// 'custom', …", Claude on Bedrock and Vertex, whose tools schemas lack tool
// versions Anthropic's own API serves): a capability of this endpoint, as
// a tool type's unknown variant is (toolTypeVariant). The text opens with
// the path tools.N or tools[N] and nothing deeper, and the tag is a
// versioned tool type, name_YYYYMMDD (a relay's labels before the path
// aside); a content block's tag, a misspelt
// "custom" and a tag deeper in a tool stay bad input. A text the client's
// request holds is no evidence.
func datedToolTag(f *facts, req []byte) bool {
	const said, lead = "does not match any of the expected tags", ": input tag '"
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		t = t[relayLabel(t):] // "upstream error: ", "[groq] ", a quote around it all
		k := toolsIndexLen(t)
		if k == 0 || len(t) < k+len(lead) || !foldEq(t[k:k+len(lead)], lead) || !containsFold(t, said) {
			continue
		}
		tag := t[k+len(lead):]
		j := bytes.IndexByte(tag, '\'')
		if j < 0 || !datedType(tag[:j]) || echoed(req, t) {
			continue
		}
		return true
	}
	return false
}

// foldEq reports whether b is s, ASCII case folded (s in lower case).
func foldEq(b []byte, s string) bool {
	if len(b) != len(s) {
		return false
	}
	for i := range b {
		if lowerTab[b[i]] != s[i] {
			return false
		}
	}
	return true
}

// toolsIndexLen is the length of the path tools.N or tools[N] at the start
// of p, 0 where p does not open with one.
func toolsIndexLen(p []byte) int {
	const root = "tools"
	if len(p) < len(root)+2 || string(p[:len(root)]) != root || p[len(root)] != '.' && p[len(root)] != '[' {
		return 0
	}
	open := p[len(root)] == '['
	i := len(root) + 1
	j := i
	for j < len(p) && p[j] >= '0' && p[j] <= '9' {
		j++
	}
	if j == i {
		return 0
	}
	if open {
		if j >= len(p) || p[j] != ']' {
			return 0
		}
		j++
	}
	return j
}

// datedType reports a versioned tool type: a lower-case name, '_', and an
// eight-digit date (web_search_20250305).
func datedType(t []byte) bool {
	const date = 8
	if len(t) < date+2 || t[len(t)-date-1] != '_' {
		return false
	}
	for _, c := range t[len(t)-date:] {
		if c < '0' || c > '9' {
			return false
		}
	}
	for _, c := range t[:len(t)-date-1] {
		if !(c >= 'a' && c <= 'z' || c == '_') {
			return false
		}
	}
	return t[0] >= 'a' && t[0] <= 'z'
}

// toolTypeLen is the length of the path tools[N].type or tools.N.type at
// the start of p, 0 where p does not open with one.
func toolTypeLen(p []byte) int {
	const leaf = ".type"
	j := toolsIndexLen(p)
	if j == 0 || len(p)-j < len(leaf) || string(p[j:j+len(leaf)]) != leaf {
		return 0
	}
	return j + len(leaf)
}

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

// roomLead is vLLM's wording (and that of the servers built on it: NVIDIA
// NIM, SGLang's OpenAI layer) when the output budget it computed is
// negative: "max_tokens must be at least 1, got -7584.".
const roomLead = "must be at least 1, got -"

// negativeRoom reads vLLM's answer to a prompt longer than the model's
// window when the client set no max_tokens: the server takes the window
// less the prompt as the output budget, which comes out negative, and
// refuses that (vllm-project/vllm#36789; later versions say "Input length
// … exceeds model's maximum context length" for the same request). So the
// prompt does not fit: context_length, which moves to a larger window. A
// negative count the client's request holds (it sent max_tokens: -5
// itself) is its own bad input, and ok is false.
func negativeRoom(f *facts, req []byte) (Verdict, bool) {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		j := indexFold(t, roomLead)
		if j < 0 {
			continue
		}
		n := t[j+len(roomLead):]
		k := 0
		for k < len(n) && n[k] >= '0' && n[k] <= '9' {
			k++
		}
		if k == 0 || !outputLimitBefore(t[:j]) || echoed(req, t[j:j+len(roomLead)+k]) || negativeMember(req, n[:k]) {
			// Another member's check ("n must be at least 1, got -1", the
			// client's own bad value: hostile 52), the client's words, or
			// its own negative number.
			return Verdict{}, false
		}
		return Verdict{Failed: true, Class: ContextLength, Evidence: "phrase:" + roomLead + "N"}, true
	}
	return Verdict{}, false
}

// outputLimits are the members whose negative value is vLLM's computed
// room: an output limit the client left unset.
var outputLimits = [...]string{"max_tokens", "max_completion_tokens", "max_output_tokens", "max_new_tokens"}

// outputLimitBefore reports whether before (the text up to roomLead) ends
// with an output limit's name and a blank: the check is about the output
// budget, not n, best_of or another member.
func outputLimitBefore(before []byte) bool {
	before = bytes.TrimRight(before, " '\"`\\")
	for _, m := range outputLimits {
		if hasSuffixFoldB(before, m) {
			return len(before) == len(m) || wordTab[before[len(before)-len(m)-1]] != 1
		}
	}
	return false
}

// negativeMember reports whether req sets an output limit (max_tokens,
// max_completion_tokens, max_output_tokens, max_new_tokens) to -digits
// itself (as a number or a numeric string): a negative number the client
// sent, not one inside its text ("-12"
// of a date, "max_retries": -1 in a config it pasted, whose quotes a
// request escapes).
func negativeMember(req, digits []byte) bool {
	for _, k := range [...]string{`"max_tokens"`, `"max_completion_tokens"`, `"max_output_tokens"`, `"max_new_tokens"`} {
		for off := 0; ; {
			i := bytes.Index(req[off:], []byte(k))
			if i < 0 {
				break
			}
			p := off + i + len(k)
			off = p
			for p < len(req) && (req[p] == ' ' || req[p] == '\t' || req[p] == '\n' || req[p] == '\r' || req[p] == ':') {
				p++
			}
			if p < len(req) && req[p] == '"' {
				p++ // "-5" in a string, which vLLM's pydantic reads as the number (hostile 52)
			}
			if p < len(req) && req[p] == '-' && bytes.HasPrefix(req[p+1:], digits) {
				end := p + 1 + len(digits)
				if end == len(req) || req[end] < '0' || req[end] > '9' {
					return true
				}
			}
		}
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
