package classify

import "bytes"

// Money in an answer: a balance, a spent key, a budget, what it can afford.

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

// ownRequestPhrases say that what a relay refuses is the request's own,
// however it types or numbers the answer, so nothing cools and nothing is
// paged (bad_request). Two of LiteLLM's proxy's answers, each sent as a 401
// typed auth_error (or a 400, or a 429; read at any status, ownRequest):
//   - the request's own end user — the "user" the client sent, which it
//     budgets as a customer — is over its budget: "ExceededBudget: End
//     User=ishaan3 over budget. Spend=…, Budget=…" (its docs,
//     proxy/users.md; hunt 62g);
//   - the request lacks a parameter the operator made required of every
//     request (enforced_params): "Authentication Error, BadRequest please
//     pass param=user in request body. This is a required param" (its
//     docs, "Enforce Required Params"; round 64).
//
// The key and the account are fine. Read as auth, one client's user (or
// one client that left it out) cooled the relay's account for every client
// and paged the operator.
var ownRequestPhrases = newPhraseSet([]phrase{
	// LiteLLM's own prefix: the id (up to a SHA-256 digest and more, any
	// punctuation: no clause) and what follows it are the client's (reviews
	// 64i, 64k).
	{a: "exceededbudget: end user=", b: "over budget", gap: 128, class: BadRequest},
	// Its per-model end-user budget (model_max_budget_limiter):
	// "LiteLLM End User: e1, exceeded budget for model=gpt-4o" (review 64k).
	{a: "litellm end user:", b: "exceeded budget for model", gap: 128, class: BadRequest},
	// Its rate limiter (parallel_request_limiter_v3) throttling that end
	// user on its own (a customer's rpm or tpm, or the proxy's default
	// end-user budget): "Rate limit exceeded for end_user: u-1. Limit
	// type: requests. …", a 429 with retry-after 60. Read as rate_limited,
	// one client's own end user cooled the relay's endpoint for a minute
	// for every client, each minute it sent past that user's limit
	// (review 67d). Its other descriptors (api_key, user, team,
	// team_member, model_per_key) are the operator's key at the relay, and
	// stay rate_limited.
	{a: "rate limit exceeded for end_user:", b: "limit type:", gap: 128, class: BadRequest},
	{a: "please pass param=", b: "required param", gap: 80, class: BadRequest},
})

// endUserPhrases is how many of ownRequestPhrases, the first, name an end
// user between their two parts (endUserSent).
const endUserPhrases = 3

// endUserSent reports whether some answer text matched by the end-user
// phrase idx (ownRequestPhrases) names as its end user a value the
// client's request holds: a member's string value that opens with the id
// ("user", "safety_identifier", "metadata": {"user_id"}, as LiteLLM reads
// them; the client's own id may run on past the phrase's second part).
// LiteLLM takes the end user from a header first (x-litellm-end-user-id,
// x-litellm-customer-id, a configured user_header_name), which a client
// of Detour cannot send but an operator's provider headers do: there the
// end user is the operator's whole account at that relay, and its budget
// spent is the account's (review 65d). Nothing the request holds only
// inside its text counts (an id the client's prompt holds proves nothing).
func endUserSent(f *facts, req []byte, idx int) bool {
	p := &ownRequestPhrases.list[idx]
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		for from := 0; from < len(t); {
			h := ownRequestPhrases.find(t, from, idx, idx+1)
			if h.idx != idx {
				break
			}
			from = h.end
			a, _ := prefixAt(t, h.start, p.a)
			j := indexFold(t[a:h.end], p.b)
			if j < 0 {
				continue
			}
			// The id ends at the phrase's second part, less the
			// punctuation the relay put after it ("e1, exceeded", "u-1.
			// Limit type"); what is left need only open the client's value.
			id := bytes.TrimRight(bytes.TrimSpace(t[a:a+j]), ", .")
			if len(id) == 0 {
				continue
			}
			// As the value of a member LiteLLM reads the end user from,
			// in the request as written: a string of the client's text
			// ("content": "<id>…", or one quoting `"user":"<id>"`, whose
			// quotes JSON escapes) names no end user (review 67h).
			var buf [maxNeedle]byte
			for _, open := range endUserMembers {
				if bytes.Contains(req, append(append(buf[:0], open...), id[:min(len(id), maxNeedle-len(open))]...)) {
					return true
				}
			}
		}
	}
	return false
}

// endUserMembers open the members whose string value LiteLLM takes as the
// end user: "user", "safety_identifier" and metadata's "user_id".
var endUserMembers = [...]string{`"user":"`, `"user": "`, `"safety_identifier":"`, `"safety_identifier": "`,
	`"user_id":"`, `"user_id": "`}

// ownRequest reads an answer saying so (ownRequestPhrases), the client's
// own text quoted back aside, at any status that reads a body: a 401 or a
// 402 (fixedVerdict), any other 4xx (clientAnswer, blocks.go) and a 5xx
// (fiveXX). Before probe 65b only at 400, 401 and 429: at a 403 or a 422
// the same words read quota or auth.
func ownRequest(f *facts, body, req []byte, model string) (Verdict, bool) {
	if f == nil || !f.parsed {
		return Verdict{}, false
	}
	ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
	if i := ts.pick(ownRequestPhrases, 0); i < len(ownRequestPhrases.list) {
		if i < endUserPhrases && len(req) > 0 && !endUserSent(f, req, i) {
			// An end user the client did not send: the operator's (its
			// provider's headers name it), so its budget is the account's.
			return Verdict{}, false
		}
		return echoMark(Verdict{Failed: true, Class: BadRequest, Evidence: ownRequestPhrases.list[i].evidence}, ts.echo), true
	}
	return Verdict{}, false
}

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
//
// With req (the client's request; nil at a 402, above), a count the
// request holds with its lead is no evidence (echo.go): read at another
// status (requestPrice), where an upstream may quote the client's text.
func affordable(f *facts, req []byte) string {
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
			if end := skipNumber(t, e); usefulCount(t[e:end]) && (len(req) == 0 || !echoed(req, t[k:end])) {
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
// With req (nil at a 402), words or a reason the client's request holds are
// no evidence, as for affordable.
func budgetAnswer(f *facts, body, req []byte) (Verdict, bool) {
	const inFlight, overBudget = "given your current in-flight requests", "maximum cost exceeds your available credits"
	for i := 0; i < f.nTexts; i++ {
		t := f.texts[i]
		if k := indexFold(t, inFlight); k >= 0 && (len(req) == 0 || !echoed(req, t[k:k+len(inFlight)])) {
			return Verdict{Failed: true, Class: RateLimited, Evidence: "phrase:in-flight requests"}, true
		}
		if k := indexFold(t, overBudget); k >= 0 && (len(req) == 0 || !echoed(req, t[k:k+len(overBudget)])) {
			return Verdict{Failed: true, Class: Overflow, Evidence: "phrase:maximum cost exceeds your available credits"}, true
		}
	}
	switch {
	case bytes.Contains(body, []byte(`"in_flight_budget_exhausted"`)) && (len(req) == 0 || !echoed(req, []byte("in_flight_budget_exhausted"))):
		return Verdict{Failed: true, Class: RateLimited, Evidence: "body:in_flight_budget_exhausted"}, true
	case bytes.Contains(body, []byte(`"weight_exceeds_budget"`)) && (len(req) == 0 || !echoed(req, []byte("weight_exceeds_budget"))):
		return Verdict{Failed: true, Class: Overflow, Evidence: "body:weight_exceeds_budget"}, true
	}
	return Verdict{}, false
}

// priced is v, a verdict of an answer whose facts are f at a status other
// than 402, or, where v is quota and the answer says what fixedVerdict
// reads in a 402 about this one request's price (requestPrice), that
// reading: the credit wording beside it is what made v quota, and the
// account could still pay for a smaller request. Only a quota verdict
// moves: elsewhere the words are no money of the account's ("Maximum
// possible cost: $0.20" alone at a 400 stays unknown).
func priced(v Verdict, f *facts, body, req []byte, model string) Verdict {
	if !v.Failed || v.Class != Quota {
		return v
	}
	if w, ok := requestPrice(f, body, req, model); ok {
		return w
	}
	return v
}

// requestPrice reads, at a status other than 402, what fixedVerdict reads
// in a 402 about this one request's price against a balance that is still
// positive: an affordable count (affordable), the in-flight budget and a
// maximum cost over the budget (budgetAnswer), a maximum possible cost over
// the available balance (priceOverBalancePhrases); each with the echo
// guard. Vendors send the same money words at 400, 403 or 429 as at 402
// (probe 65b): there the credit wording beside them read quota, so one
// client's max_tokens cooled the account and paged the operator. ok false:
// nothing of the kind is said.
func requestPrice(f *facts, body, req []byte, model string) (Verdict, bool) {
	if f == nil || !f.parsed {
		return Verdict{}, false
	}
	if ev := affordable(f, req); ev != "" {
		return Verdict{Failed: true, Class: Overflow, Evidence: ev}, true
	}
	if v, ok := budgetAnswer(f, body, req); ok {
		return v, true
	}
	ts := textScan{f: f, body: bodyText(f, body), req: req, model: model}
	if i := ts.pick(priceOverBalancePhrases, 0); i < len(priceOverBalancePhrases.list) && !emptyBalance(f) {
		return echoMark(Verdict{Failed: true, Class: Overflow, Evidence: priceOverBalancePhrases.list[i].evidence}, ts.echo), true
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
