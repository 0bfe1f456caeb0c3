package classify

import "bytes"

// A "not supported" about a model says it is gone only where the model
// itself is what is unsupported ("Model X is not currently supported",
// "Unsupported model X"). Where a feature of it is ("This model does not
// support image input. Image inputs are not currently supported", "Image
// input for this model is not supported", "Unsupported model for this
// feature: logprobs"), the answer is a capability gap the client's request
// ran into: reading it as a gone model would let any client cool the
// endpoint for everyone by asking for what the model lacks
// (docs/behaviour.md, "A gone model is the model, not a feature of it").

// modelIsSubject reports whether the word "model" matched at t[i:end] is
// the subject of the sentence, not the object of a preposition ("for this
// model", "with the model") or followed by what it is unsupported for
// ("unsupported model for this feature").
func modelIsSubject(t []byte, i, end int) bool {
	w1s, w1e := prevWord(t, i)
	if w1s >= 0 && determiner(t[w1s:w1e]) {
		if w2s, w2e := prevWord(t, w1s); w2s >= 0 && preposition(t[w2s:w2e]) {
			return false
		}
	} else if w1s >= 0 && preposition(t[w1s:w1e]) {
		return false
	}
	// "unsupported model for …": what follows says for what.
	j := end
	for j < len(t) && (t[j] == ' ' || t[j] == '\t') {
		j++
	}
	_, forWhat := prefixAt(t, j, "for ")
	if j > end && forWhat {
		return false
	}
	// "Requests ending with a model turn are not supported": "model"
	// names a kind of turn, message or output, not the model.
	if j > end {
		for _, n := range modelNouns {
			if e, ok := prefixAt(t, j, n); ok && (e == len(t) || wordTab[t[e]] == 0) {
				return false
			}
		}
	}
	return true
}

// modelNouns follow "model" where it qualifies another noun.
var modelNouns = [...]string{"turn", "turns", "role", "message", "messages", "response", "responses", "output", "outputs", "part", "parts", "content"}

// featureBetween reports whether the gap between "model" and "not
// supported" speaks of support, lists something (a colon and a blank: a
// model id may hold a colon) or ends a sentence: the model
// supports, or lacks, a feature, which is what is not supported.
func featureBetween(gap []byte) bool {
	return containsFold(gap, "support") || containsFold(gap, ": ") || sentenceEnds(gap)
}

// goneNouns are the words naming what an endpoint serves: a model, the
// endpoint or API itself, a version of it, a deployment. "X is no longer
// supported" is about the endpoint only when X is one of them.
var goneNouns = [...]string{"model", "models", "endpoint", "endpoints", "api", "apis", "version", "deployment"}

// goneNounsCJK are goneNouns in Chinese: a model, an interface (an API), a
// version, an endpoint (推理接入点, Ark's).
var goneNounsCJK = [...][]byte{[]byte("模型"), []byte("接口"), []byte("版本"), []byte("接入点")}

// maxSubjectBack bounds how far back goneSubject reads for the subject.
const maxSubjectBack = 160

// goneSubject reports whether what the sentence ending at t[i] says is
// gone ("… is no longer supported", "… is deprecated") is the endpoint's:
// the words before it in the sentence name a model, an endpoint, an API
// or a version (goneNouns), or there are none ("No longer supported."). A
// sentence that names something else ("Live search is deprecated", xAI's
// 410 to a request carrying search_parameters; "The functions parameter is
// no longer supported") says a feature of the request is gone: the
// request moves on, and nothing cools for everyone (docs/behaviour.md,
// "A gone model is the model, not a feature of it").
func goneSubject(t []byte, i int) bool {
	s := sentenceStart(t, i)
	for _, n := range goneNounsCJK {
		// Chinese runs its words together: the noun inside the subject
		// ("该模型已下线", the model taken offline).
		if bytes.Contains(t[s:i], n) {
			return true
		}
	}
	named, quoted := false, false
	for j := s; j < i; {
		for j < i && !accountWordByte(t[j]) {
			if isQuote(t, j) && (quoted || closes(t, j, i)) {
				// A quote that closes nowhere before the match opens
				// the whole message (a relay's 'Gemini 1.0 … has been
				// deprecated'), not a name.
				quoted = !quoted
			}
			j++
		}
		k := j
		for k < i && accountWordByte(t[k]) { // a field's snake_case name is one word: service_tier is no service
			k++
		}
		if k == j {
			break
		}
		named = true
		for _, n := range goneNouns {
			if eqFold(t[j:k], n) && !requestPartNext(t, k, i) {
				return true
			}
		}
		if !quoted && versionWord(t, j, k) {
			return true
		}
		j = k
	}
	return !named
}

// requestPartNouns name a part of a request. After a gone-noun they make
// it a modifier: "The legacy Interactions API schema is no longer
// supported" (hunt 54b, Gemini) says the request's shape is gone, not the
// API; "the model parameter", "the endpoint header" likewise.
var requestPartNouns = [...]string{"schema", "schemas", "parameter", "parameters", "param", "params", "field", "fields", "format", "formats", "header", "headers", "option", "options", "argument", "arguments", "property", "properties", "member", "members", "setting", "settings"}

// requestPartNext reports whether the word after t[:k], before i, names a
// part of a request (requestPartNouns).
func requestPartNext(t []byte, k, i int) bool {
	j := k
	for j < i && t[j] == ' ' {
		j++
	}
	if j == k {
		return false
	}
	e := j
	for e < i && accountWordByte(t[e]) {
		e++
	}
	for _, n := range requestPartNouns {
		if eqFold(t[j:e], n) {
			return true
		}
	}
	return false
}

// versionWord reports whether t[j:k], a word of a sentence's subject, is
// a number outside any identifier: a model's display name carries its
// version ("Gemini 1.0 Pro Vision", "Claude 2"), which a feature's name
// ("Live search", "The functions parameter", "Web search 2") does not: the
// number must follow a capitalised name. A number in a field's index
// (tools[0]) or quoted (`web-search-2025-03-05`, a beta the client named)
// is not one.
func versionWord(t []byte, j, k int) bool {
	for _, c := range t[j:k] {
		if c < '0' || c > '9' {
			return false
		}
	}
	joined := func(c byte) bool { return c == '_' || c == '[' || c == ']' }
	if j > 0 && joined(t[j-1]) || k < len(t) && joined(t[k]) {
		return false
	}
	// A name's version is dotted, or follows the name, which is
	// capitalised ("Gemini 1.0", "Claude 2", "GPT-4"); "Web search 2"
	// names a feature.
	if k+1 < len(t) && t[k] == '.' && t[k+1] >= '0' && t[k+1] <= '9' {
		return true // a dotted version: "1.0", "2.5", in any letter case
	}
	p := j
	for p > 0 && (t[p-1] == ' ' || t[p-1] == '-') {
		p--
	}
	s := p
	for s > 0 && wordTab[t[s-1]] == 1 {
		s--
	}
	return s < p && t[s] >= 'A' && t[s] <= 'Z'
}

// namesModelBefore reports whether the sentence before t[i] names the
// model Detour sent ("grok-beta is deprecated"): what is gone is the
// endpoint's model, however the sentence words it.
func (ts *textScan) namesModelBefore(t []byte, i int) bool {
	if len(ts.model) < 2 {
		return false
	}
	return hasName(t[sentenceStart(t, i):i], ts.model)
}

// hasName reports whether t holds the model name m whole, ASCII case aside
// ("DeepSeek-R1" as "deepseek-r1"), not as a piece of another name ("o3" in
// a client's tool "o3-helper"); a full stop may follow it.
func hasName(t []byte, m string) bool {
	if len(m) == 0 {
		return false
	}
	c0 := lowerTab[m[0]]
	for k := 0; k+len(m) <= len(t); k++ {
		if lowerTab[t[k]] != c0 {
			continue
		}
		end := k + len(m)
		if eqFold(t[k:end], m) && (k == 0 || !idByte(t[k-1])) && (end == len(t) || !idByte(t[end]) ||
			t[end] == '.' && (end+1 == len(t) || !idByte(t[end+1]))) {
			return true
		}
	}
	return false
}

// subjectEchoed reports whether the sentence before t[i] names something
// the client sent (a quoted span, or a name holding a digit, '-', '_' or
// '.', found in the request): "Invalid 'tools[0].name': 'o3-helper' is
// deprecated" speaks of the client's tool, not of the endpoint, whatever
// words it uses (docs/behaviour.md, "Echo rule").
func (ts *textScan) subjectEchoed(t []byte, i int) bool {
	if len(ts.req) == 0 {
		return false
	}
	subj := t[sentenceStart(t, i):i]
	for j := 0; j < len(subj); {
		if isQuote(subj, j) {
			q := subj[j]
			e := j + 1
			for e < len(subj) && subj[e] != q {
				e++
			}
			if e < len(subj) && e-j-1 >= 3 && echoed(ts.req, subj[j+1:e]) {
				return true
			}
			j = e + 1
			continue
		}
		if !idByte(subj[j]) {
			j++
			continue
		}
		e := j
		named := false // a name, not a word: it holds a digit, '-', '_' or '.'
		for e < len(subj) && idByte(subj[e]) {
			c := subj[e]
			named = named || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.'
			e++
		}
		// The request's top-level model is the route, which may be named
		// after the model Detour sent: a name found only there is the
		// endpoint's ("Gemini 3.5 Flash is no longer available" for
		// gemini-3.5-flash), one found anywhere else the client's.
		if named && e-j >= 3 && !eqFold(subj[j:e], ts.model) && echoedBesideModel(ts.req, subj[j:e]) {
			return true
		}
		j = e
	}
	return false
}

// gone returns the index in s of the endpoint's reading (goneNoun) of the
// feature phrase at idx, the same words; n when there is none.
func gone(s *phraseSet, idx int) int {
	for i := range s.list {
		if p := &s.list[i]; p.goneNoun && p.a == s.list[idx].a && p.b == s.list[idx].b {
			return i
		}
	}
	return len(s.list)
}

// featurePhrases are gonePhrases' wordings of a feature of the request that
// is gone, read in a 410, whose status alone otherwise decides: xAI answers
// 410 to a request that carries its retired Live Search.
var featurePhrases = newPhraseSet(featureGonePhrases)

// modelErrorPhrases read a 401 whose error object's type is ModelError
// (OpenCode Zen and Go: {"type":"error","error":{"type":"ModelError",
// "message":…}}), the status OpenCode sends for every model error: the key
// was accepted, and what failed is the model asked for. The API-format
// wording comes first ("Model X is not supported for format oa-compat": the
// model is served, on another of its APIs, the door's), then the gone
// model ("Model X is not supported", a free variant whose promotion has
// ended). Any other wording keeps the 401's auth: the type alone is no
// proof, and a key really refused must still cool the account.
var modelErrorPhrases = newPhraseSet([]phrase{
	{a: "not supported for format", class: Unknown, evidence: "type:ModelError+phrase:not supported for format"},
	{a: "model", b: "not supported", gap: 60, class: Unavailable, subject: true, evidence: "type:ModelError+phrase:model…not supported"},
	{a: "free promotion has ended", class: Unavailable, evidence: "type:ModelError+phrase:free promotion has ended"},
})

// modelError reads a 401 whose error type is ModelError by its words
// (modelErrorPhrases), as sent or quoted whole by a relay in front (LiteLLM's
// "OpenAIException - {…}", OpenRouter's metadata.raw: inner.go), which
// keeps the 401; ok is false where neither says the model is gone or
// served on another API.
func modelError(f *facts, body, req []byte, model string) (Verdict, bool) {
	if !eq(f.errType, "ModelError") {
		// A relay's quoted answer, read as relayedAnswer reads one: not
		// where the envelope names a request field, nor where the client's
		// request holds the object or its lead.
		if !mayQuote(body) || len(paramValue(f.param)) > 0 {
			return Verdict{}, false
		}
		inner, lead, raw, _, buf := quotedAnswer(f, 0, nil)
		if inner == nil {
			return Verdict{}, false
		}
		defer textBufs.Put(buf)
		if quotedEchoed(req, inner, lead, raw) {
			return Verdict{}, false
		}
		var s scanner
		s.readAnswer(inner)
		if !s.f.parsed || !eq(s.f.errType, "ModelError") {
			return Verdict{}, false
		}
		return modelErrorWords(&s.f, inner, req, model)
	}
	return modelErrorWords(f, body, req, model)
}

// modelErrorWords picks modelErrorPhrases in the answer whose facts are f.
func modelErrorWords(f *facts, body, req []byte, model string) (Verdict, bool) {
	ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
	if i := ts.pick(modelErrorPhrases, 0); i < len(modelErrorPhrases.list) {
		p := &modelErrorPhrases.list[i]
		return echoMark(Verdict{Failed: true, Class: p.class, Evidence: p.evidence}, ts.echo), true
	}
	return Verdict{}, false
}

// fixedVerdict is the verdict of a status whose body the rules do not read
// (statusFixed), given as st with evidence ev, for an answer whose facts are
// f (nil when not read): the status's class, but for a 410 whose message
// says a feature of the request is what is gone (featurePhrases), which is
// unknown: the request moves on and nothing cools, and for a 401 whose
// error type is ModelError and whose words say the model is gone or served
// on another API (modelErrorPhrases). A relay's own key (relayKey) is read
// first.
func fixedVerdict(st int, ev string, f *facts, body, req []byte, model string) Verdict {
	if st == 402 && f != nil {
		if ev := affordable(f); ev != "" {
			return Verdict{Failed: true, Class: Overflow, Evidence: ev}
		}
		if v, ok := budgetAnswer(f, body); ok {
			return v
		}
		if f.parsed {
			ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
			if i := ts.pick(priceOverBalancePhrases, 0); i < len(priceOverBalancePhrases.list) && !emptyBalance(f) {
				return echoMark(Verdict{Failed: true, Class: Overflow, Evidence: priceOverBalancePhrases.list[i].evidence}, ts.echo)
			}
		}
	}
	if (st == 401 || st == 402) && f != nil {
		if v, ok := relayKey(statusClass[st], f); ok {
			return v
		}
	}
	if st == 401 {
		if v, ok := endUserBudget(f, body, req, model); ok {
			return v
		}
	}
	if st == 401 && f != nil && f.parsed {
		if v, ok := modelError(f, body, req, model); ok {
			return v
		}
		if v, ok := spentKey(f, body, req, model); ok {
			return v
		}
		ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
		if i := ts.pick(modelAllowlistPhrases, 0); i < len(modelAllowlistPhrases.list) && ts.pick(signedInPhrases, 0) == len(signedInPhrases.list) {
			return echoMark(Verdict{Failed: true, Class: Forbidden, Evidence: modelAllowlistPhrases.list[i].evidence}, ts.echo)
		}
	}
	if st == 410 && f != nil && f.parsed {
		ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
		if i := ts.pick(featurePhrases, 0); i < len(featurePhrases.list) {
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: featurePhrases.list[i].evidence}, ts.echo)
		}
	}
	if st == 405 && f != nil && f.parsed && !methodWords(f) {
		// A 405 that is a model's capability gap naming no method
		// (capgap.go, round 54c): read by its words.
		ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
		if i := ts.pick(modelGapPhrases, 0); i < len(modelGapPhrases.list) {
			return echoMark(Verdict{Failed: true, Class: Unknown, Evidence: modelGapPhrases.list[i].evidence}, ts.echo)
		}
	}
	return Verdict{Failed: true, Class: statusClass[st], Evidence: ev}
}

// priceOverBalancePhrases say, in a 402, that this one request's maximum
// price is over a balance that is still positive: Gatewayz's pre-flight
// reservation "Insufficient credits for this request. Maximum possible
// cost: $0.2000. Available balance: $0.0500." (priced on max_tokens; round
// 58, hunt 58b), the meaning of OpenRouter's weight_exceeds_budget
// (budgetAnswer): overflow, a smaller request is served. Read with the echo
// guard, unlike OpenRouter's own words.
var priceOverBalancePhrases = newPhraseSet([]phrase{
	{a: "maximum possible cost", class: Overflow},
})

// emptyBalance reports a text that states the available balance as zero
// ("Available balance: $0.0000."): the account is empty, and the price of
// one request over it is no measure of size (quota stands).
func emptyBalance(f *facts) bool {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		j := indexFold(t, "available balance:")
		if j < 0 {
			continue
		}
		t = t[j+len("available balance:"):]
		for len(t) > 0 && (t[0] == ' ' || t[0] == '$') {
			t = t[1:]
		}
		if len(t) > 0 && t[0] == '-' {
			return true // below zero: an account that owes (review 58, hostile 58b)
		}
		digits := false
		for len(t) > 0 && (t[0] == '0' || t[0] == '.') {
			digits = digits || t[0] == '0'
			t = t[1:]
		}
		if digits && (len(t) == 0 || t[0] < '1' || t[0] > '9') {
			return true
		}
	}
	return false
}

// spentPhrases say a key's allowance is used up, in the words relays and
// providers send with a 401: one-api's and new-api's
// "该令牌额度已用尽 TokenStatusExhausted[sk-abc***xyz]" (a relay key's own
// quota; "This token quota is exhausted" in its English locale, 該令牌額度已用盡
// in zh-TW), Huawei MaaS's "The free quota has been used up.", LLM
// Gateway's "API key reached its usage limit". Only the
// spent forms: a 401 that says a balance is merely low beside a refused
// key stays auth.
var spentPhrases = newPhraseSet([]phrase{
	{a: "tokenstatusexhausted", class: Quota},
	{a: "额度已用尽", class: Quota},
	{a: "额度已用完", class: Quota},
	{a: "額度已用盡", class: Quota},
	{a: "額度已用完", class: Quota},
	{a: "quota is exhausted", class: Quota},
	{a: "quota has been exhausted", class: Quota},
	{a: "quota has been used up", class: Quota},
	// A gateway key's own usage limit reached (LLM Gateway's 401
	// "Unauthorized: LLMGateway API key reached its usage limit.", code
	// invalid_api_key; round 54d): the key was read, its allowance is spent.
	{a: "reached its usage limit", class: Quota},
	{a: "exceeded its usage limit", class: Quota},
	{a: "usage limit reached", class: Quota},
	{a: "usage limit exceeded", class: Quota},
	// A paid standing lapsed (Venice's AUTHENTICATION_FAILED_INACTIVE_KEY
	// "Authentication failed - Pro subscription is inactive. Please upgrade
	// your subscription to continue using the API"; round 58, hunt 58a): the
	// key is known, the account must pay, as the corpus reads the same
	// words at 402 and 403. Not a subscription key's wording (Azure's
	// "invalid subscription key ... an active subscription" stays auth).
	{a: "subscription is inactive", class: Quota},
	{a: "subscription is not active", class: Quota},
	{a: "subscription has expired", class: Quota},
	{a: "subscription has lapsed", class: Quota},
	{a: "payment is past due", class: Quota},
	{a: "membership is not active", class: Quota},
	{a: "must subscribe to a plan", class: Quota}, // none ever taken, where every model needs one (Zed's; hunt 63d, phrasesaccount.go)
})

// endUserBudgetPhrases say that the request's own end user — the "user"
// the client sent, which LiteLLM's proxy budgets as a customer — is over
// its budget: "ExceededBudget: End User=ishaan3 over budget. Spend=…,
// Budget=…" (its docs, proxy/users.md; a 401 typed auth_error; hunt 62g).
// The key and the account are fine; the request is at fault (bad_request:
// nothing cools, nothing is paged, no other target is asked to serve a
// user the operator budgeted). Read as auth, one client's user cooled the
// relay's account and paged the operator.
var endUserBudgetPhrases = newPhraseSet([]phrase{
	{a: "end user=", b: "over budget", gap: 64, clause: true, class: BadRequest},
})

// endUserBudget reads an answer saying the request's own end user is over
// its budget (endUserBudgetPhrases), at a 401 (fixedVerdict) or a 400 or
// 429 (blocks.go): LiteLLM sends it with each.
func endUserBudget(f *facts, body, req []byte, model string) (Verdict, bool) {
	if f == nil || !f.parsed {
		return Verdict{}, false
	}
	ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
	if i := ts.pick(endUserBudgetPhrases, 0); i < len(endUserBudgetPhrases.list) {
		return echoMark(Verdict{Failed: true, Class: BadRequest, Evidence: endUserBudgetPhrases.list[i].evidence}, ts.echo), true
	}
	return Verdict{}, false
}

// modelAllowlistPhrases say, in a 401, that the key was read and is good
// but not granted this model: Huawei MaaS's ModelArts.81015 "Invalid model
// %s, rejected by api key model allowlist setting." (round 57, hunt 57d).
// The key serves its other models, so forbidden (the endpoint), not auth
// (the whole account). An IP allowlist refuses the key from this gateway
// for every model and stays auth.
var modelAllowlistPhrases = newPhraseSet([]phrase{
	{a: "model allowlist", class: Forbidden},
	{a: "model whitelist", class: Forbidden},
	{a: "rejected by api key model", class: Forbidden},
	// LiteLLM's proxy, at 401, for a key, a team, a user or an org not
	// granted the model it asked for ("key not allowed to access model.
	// This key can only access models=[…]", "Team not allowed to access
	// model. Team=…": its auth checks; the corpus's known miss, hunt 62g).
	{a: "not allowed to access model", class: Forbidden},
	// A tier gate: the account's plan is not granted this model (Venice's
	// PRO_ONLY_MODEL "This model is only available to Pro users"; round 58,
	// hunt 58a), as apps word it for paid subscribers and members.
	{a: "only available to", b: "users", gap: 24, clause: true, class: Forbidden},
	{a: "only available to", b: "subscribers", gap: 24, clause: true, class: Forbidden},
	{a: "only available on", b: "plan", gap: 32, clause: true, class: Forbidden},
})

// signedInPhrases say that what a 401 gates on is being signed in at all
// ("only available to authenticated users. Please provide a valid API
// key."): the credential, auth, never a tier gate (review 58).
var signedInPhrases = newPhraseSet([]phrase{
	{a: "authenticated users", class: Auth},
	{a: "logged-in users", class: Auth},
	{a: "logged in users", class: Auth},
	{a: "registered users", class: Auth},
	{a: "signed-in users", class: Auth},
	{a: "signed in users", class: Auth},
})

// spentKey reads a 401 whose code or words say the key's allowance is
// spent, not that the key is refused: the key was read and is good, and no
// rotation mends it, so it is quota (the account cools, the operator is
// paged for money, not a credential). A quota code (new-api's
// insufficient_token_quota, OpenAI's insufficient_quota) or a spentPhrases
// wording the client did not send decides; ok is false otherwise, and the
// 401 stays auth.
func spentKey(f *facts, body, req []byte, model string) (Verdict, bool) {
	cs := codeScan{req: req}
	cs.scan(nil, f)
	if cs.strong == Quota {
		return Verdict{Failed: true, Class: Quota, Evidence: cs.strongEv}, true
	}
	ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
	if i := ts.pick(spentPhrases, 0); i < len(spentPhrases.list) {
		return Verdict{Failed: true, Class: Quota, Evidence: spentPhrases.list[i].evidence}, true
	}
	return Verdict{}, false
}

// relayKey is the verdict for an account's class (quota, auth) that a
// relay's answer says is about the relay's own key at its upstream
// (OpenRouter's metadata.is_byok false beside the upstream's raw body: its
// DeepSeek key out of balance while the operator's OpenRouter account can
// pay): the relay's failure at this model, server_error, which cools the
// endpoint, not the operator's account, and pages no one. ok false: c
// stands.
func relayKey(c Class, f *facts) (Verdict, bool) {
	if (c == Quota || c == Auth) && f.relayRaw && f.relayOwnKey {
		return Verdict{Failed: true, Class: ServerError, Evidence: "body:metadata.is_byok=false"}, true
	}
	return Verdict{}, false
}

// fixedAnswer is fixedVerdict for a 4xx answer sent with a fixed status:
// only a 410's, a 405's, a 402's and a 401's body is read.
func fixedAnswer(st int, body, req []byte, model string) Verdict {
	if st != 410 && st != 405 && st != 402 && st != 401 || len(body) == 0 {
		return statusVerdict(st)
	}
	var s scanner
	s.readAnswer(body)
	return fixedVerdict(st, statusEvidence[st], &s.f, body, req, model)
}

// requestCauses are the words that offer the request as another cause of
// what a gone-model phrase said.
var requestCauses = [...]string{"or your request", "or the request", "or this request"}

// orTheRequest reports whether the sentence that goes on at t[end] offers
// the request as another cause ("You invoked an unsupported model or your
// request did not allow prompt caching", Bedrock's answer to a request
// with cache points): the model is then not proven gone, and reading it so
// would let one client's request cool the endpoint for a day.
func orTheRequest(t []byte, end int) bool {
	e := sentenceEnd(t, end)
	for _, w := range requestCauses {
		for at := end; at < e; {
			i := indexFold(t[at:e], w)
			if i < 0 {
				break
			}
			// "or" a word of its own: "for the requested model" offers
			// no other cause.
			if at+i == 0 || wordTab[t[at+i-1]] == 0 {
				return true
			}
			at += i + 1
		}
	}
	return false
}

// namesRequestField reports whether t names a request field with an index
// or a member after it ("Invalid 'tools[0].name': 'o3' is deprecated"):
// what follows speaks of that field's value, the client's, even where it
// spells the model Detour sent.
func namesRequestField(t []byte) bool {
	for _, root := range requestRoots {
		for at := 0; ; {
			i := bytes.Index(t[at:], []byte(root))
			if i < 0 {
				break
			}
			e := at + i + len(root)
			if e < len(t) && (t[e] == '[' || t[e] == '.') && (at+i == 0 || !idByte(t[at+i-1])) {
				return true
			}
			at = e
		}
	}
	return false
}

// clientThings are the words for what a client's request points to and an
// upstream fetches: a URL, an image, a file.
var clientThings = [...]string{"http", "image", "file", "url", "audio", "video", "document", "media", "attachment"}

// namesClientThing reports whether t names something the client's request
// points to (clientThings): a fetch of it that timed out is the client's
// host, not the server's own timer ("failed to fetch model weights:
// timeout" names none).
func namesClientThing(t []byte) bool {
	for _, w := range clientThings {
		if containsFold(t, w) {
			return true
		}
	}
	return false
}

// affordable finds, in a 402's texts, what the account can still pay for
// this request, a count of tokens an ordinary request fits in (usefulCount):
// "This request requires more credits, or fewer max_tokens. You requested
// up to 1000000 tokens, but can only afford 10114", "Prompt tokens
// limit exceeded: 64128 > 6964", or "128000 token capacity required, 19484
// available" (OpenRouter). That answer is about this
// request's size, not an account that cannot pay: a smaller request is
// served, so it is overflow — it moves on and cools nothing — where quota
// would let one client's max_tokens or prompt cool the account and page
// the operator (review 32g). "can only afford 0", or 222 (nothing an
// ordinary request fits in), stays quota: the account is as good as
// empty. The client's text is not checked: a 402 quotes no prompt, and a
// client that pasted the same error could only push the verdict toward
// the class that cools (review 32i).
// It returns the verdict's evidence, "" for none.
func affordable(f *facts) string {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		for _, a := range affordLeads {
			k := indexFold(t, a.lead)
			if k < 0 {
				continue
			}
			e := k + len(a.lead)
			if a.over { // "N > M": M is what it can afford
				e = skipNumber(t, e)
				if !bytes.HasPrefix(t[e:], []byte(" > ")) {
					continue
				}
				e += len(" > ")
			}
			if usefulCount(t[e:skipNumber(t, e)]) {
				return a.evidence
			}
		}
	}
	return ""
}

// affordLeads are the words before what a 402 says the account can still
// afford; over: a count and " > " come first.
var affordLeads = [...]struct {
	lead, evidence string
	over           bool
}{
	{"can only afford ", "phrase:can only afford", false},
	{"prompt tokens limit exceeded: ", "phrase:prompt tokens limit exceeded", true},
	// "More credits are required to run this request. 128000 token
	// capacity required, 19484 available." (OpenRouter, a key's limit)
	{"token capacity required, ", "phrase:token capacity required", false},
}

// budgetAnswer reads OpenRouter's in-flight spending budget in a 402: the
// running and recently settled requests hold a share of a balance that is
// still positive. "This request would exceed your available credits given
// your current in-flight requests. Retry after in-flight requests settle"
// (reason in_flight_budget_exhausted, sent with a Retry-After) passes in
// seconds, with no request still running: rate_limited, so a burst of
// concurrent requests cools the endpoint for the wait it names instead of
// the account for account_cooldown, paging the operator. "This request's
// maximum cost exceeds your available credits. Add credits, or lower
// max_tokens or prompt size." (weight_exceeds_budget) is this one
// request's size against the whole budget: a smaller request is served, so
// overflow, as an affordable count is (affordable). Near an empty balance
// the same words come back for every request, and there only the next
// answers ("Insufficient credits", "can only afford 0") cool the account
// (docs/behaviour.md). The client's text is not checked, as for affordable:
// a 402 quotes no prompt. ok false: the status decides.
func budgetAnswer(f *facts, body []byte) (Verdict, bool) {
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if containsFold(t, "given your current in-flight requests") {
			return Verdict{Failed: true, Class: RateLimited, Evidence: "phrase:in-flight requests"}, true
		}
		if containsFold(t, "maximum cost exceeds your available credits") {
			return Verdict{Failed: true, Class: Overflow, Evidence: "phrase:maximum cost exceeds your available credits"}, true
		}
	}
	switch {
	case bytes.Contains(body, []byte(`"in_flight_budget_exhausted"`)):
		return Verdict{Failed: true, Class: RateLimited, Evidence: "body:in_flight_budget_exhausted"}, true
	case bytes.Contains(body, []byte(`"weight_exceeds_budget"`)):
		return Verdict{Failed: true, Class: Overflow, Evidence: "body:weight_exceeds_budget"}, true
	}
	return Verdict{}, false
}

// minUseful is the fewest tokens an account must still afford for a 402
// to be about one request's size rather than an empty account.
const minUseful = 1024

// usefulCount reports whether n, digits with thousands commas or a
// fraction, is at least minUseful.
func usefulCount(n []byte) bool {
	v := 0
	for _, c := range n {
		switch {
		case c >= '0' && c <= '9':
			if v = v*10 + int(c-'0'); v >= minUseful {
				return true
			}
		case c == '.':
			return false
		}
	}
	return false
}
