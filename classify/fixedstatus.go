package classify

// A fixed status (statusFixed), and the few words that overturn it.

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
		if ev := affordable(f, nil); ev != "" {
			return Verdict{Failed: true, Class: Overflow, Evidence: ev}
		}
		if v, ok := budgetAnswer(f, body, nil); ok {
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
	if st == 401 || st == 402 {
		if v, ok := ownRequest(f, body, req, model); ok {
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
	// Baidu Qianfan's invalid_model at 401, "No permission to use the
	// model" (its error-code table: the user is not granted this model;
	// hunt 68a), and the same words of other services.
	{a: "permission to use the model", class: Forbidden},
	{a: "permission to use this model", class: Forbidden},
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
