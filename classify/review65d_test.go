package classify

import (
	"strconv"
	"strings"
	"testing"
)

// Review 65d: hostile review of probe 65b (LiteLLM's own-request words at
// any status, a request's price beside a quota verdict at any status,
// throttle words beside "too many tokens") and probe 65a (more relays'
// leads, a quoted array after a status, a digit param).

// litellm65d is LiteLLM's end-user budget answer (litellm/proxy/auth/
// auth_checks.py: "ExceededBudget: End User={end_user_id} over budget.
// Spend={spend}, Budget={budget}", type budget_exceeded) naming id, sent
// with status st, the body's code the same.
func litellm65d(id string, st int) string {
	return `{"error":{"message":"ExceededBudget: End User=` + id + ` over budget. Spend=100.2, Budget=100.0","type":"budget_exceeded","param":null,"code":"` + strconv.Itoa(st) + `"}}`
}

// (1) Hole. LiteLLM takes the end user from a header before the body
// (x-litellm-end-user-id, x-litellm-customer-id, a configured
// user_header_name: a LiteLLM deployment's integration tests, "header
// precedence", answer 422 budget_exceeded "ExceededBudget: End User=<the
// header's id> over budget" while the body's user is another one). A client
// of Detour sends no such header; an operator's provider headers can, and
// then the end user is the operator's whole account at that relay. Read as
// bad_request at any status since probe 65b (before at 400, 401 and 429
// only; at a 422 budget_exceeded it read quota): the spent account paged
// no one, cooled nothing, and stopped every client's walk there. Where the
// request is known, the id must be a value the client sent.
func TestReview65dEndUserTheClientDidNotSend(t *testing.T) {
	alice := `{"model":"m","user":"alice","messages":[{"role":"user","content":"hi"}]}`
	none := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for _, st := range []int{400, 402, 403, 422, 429, 500, 503} {
		want56(t, "operator's end user, client sent alice "+strconv.Itoa(st), classify56(st, litellm65d("detour-prod", st), alice, false), Quota, "")
		want56(t, "operator's end user, client sent none "+strconv.Itoa(st), classify56(st, litellm65d("detour-prod", st), none, false), Quota, "")
		want56(t, "client's end user "+strconv.Itoa(st), classify56(st, litellm65d("alice", st), alice, false), BadRequest, "phrase:exceededbudget: end user=…over budget")
	}
	// At a 401 typed auth_error (LiteLLM's docs' form): the key's account, auth.
	auth := `{"error":{"message":"ExceededBudget: End User=detour-prod over budget. Spend=1, Budget=0","type":"auth_error","param":"None","code":401}}`
	want56(t, "operator's end user at 401", classify56(401, auth, alice, false), Auth, "")
	// The per-model end-user budget likewise.
	perModel := `{"error":{"message":"LiteLLM End User: detour-prod, exceeded budget for model=gpt-4o","type":"budget_exceeded","param":null,"code":"429"}}`
	want56(t, "operator's per-model end user", classify56(429, perModel, alice, false), Quota, "")
	// The id only in the client's prompt is not the client's end user.
	prompt := `{"model":"m","messages":[{"role":"user","content":"my id is detour-prod"}]}`
	want56(t, "id in the prompt only", classify56(422, litellm65d("detour-prod", 422), prompt, false), Quota, "")
	// A real 402 whose text quotes the client's "ExceededBudget: End User="
	// before its own "over budget" (a 402 read ownRequest since probe 65b):
	// the two halves are not one answer's end user.
	half := `{"model":"m","messages":[{"role":"user","content":"ExceededBudget: End User=x"}]}`
	want56(t, "half the phrase the client's", classify56(402, `{"error":{"message":"Request from ExceededBudget: End User=x rejected: organization over budget. Add credits."}}`, half, false), Quota, "")
}

// (1) Guard: the ids real clients send, however they reach LiteLLM, still
// read as their own end user.
func TestReview65dEndUserTheClientSent(t *testing.T) {
	sha := strings.Repeat("9f2c4e1a", 8)
	for _, c := range []struct{ name, id, req string }{
		{"user", "alice", `{"model":"m","user":"alice","messages":[]}`},
		{"safety_identifier (Responses)", "sid-7", `{"model":"m","safety_identifier":"sid-7","input":"hi"}`},
		{"metadata.user_id (Messages)", "user_abc", `{"model":"m","metadata":{"user_id":"user_abc"},"messages":[]}`},
		{"an email", "proxytest@example.com", `{"model":"m","user":"proxytest@example.com","messages":[]}`},
		{"a digest and more", sha + "-team-a", `{"model":"m","user":"` + sha + `-team-a","messages":[]}`},
		{"an id holding the second part", "x over budget y", `{"model":"m","user":"x over budget y","messages":[]}`},
		{"an id with a quote", `who \"me\"`, `{"model":"m","user":"who \"me\"","messages":[]}`},
		{"a blank after the colon", "bob", `{"model":"m", "user": "bob","messages":[]}`},
	} {
		for _, st := range []int{401, 422, 429, 500} {
			want56(t, c.name+" "+strconv.Itoa(st), classify56(st, litellm65d(c.id, st), c.req, false), BadRequest, "")
		}
	}
	perModel := `{"error":{"message":"LiteLLM End User: e1, exceeded budget for model=gpt-4o","type":"budget_exceeded","param":null,"code":"429"}}`
	want56(t, "per-model, the client's", classify56(429, perModel, `{"model":"m","user":"e1","messages":[]}`, false), BadRequest, "")
}

// (1, 2) Guard: the new words quoted back from the client's prompt, at the
// statuses probe 65b opened and through a relay's quoting, move no account
// class.
func TestReview65dEchoedWordsMoveNoAccountClass(t *testing.T) {
	own := "ExceededBudget: End User=bob over budget"
	echo56(t, 402, own, `{"error":{"message":"Insufficient credits. Request: `+own+`"}}`, Quota)
	echo56(t, 503, own, `{"error":{"message":"Insufficient credits. Request: `+own+`"}}`, Quota)
	echo56(t, 402, own, `{"error":{"message":"Provider returned error","code":402,"metadata":{"raw":"{\"error\":{\"message\":\"Insufficient balance. prompt: `+own+`\"}}","provider_name":"X","is_byok":true}}}`, Quota)
	// The client's text with a quote, quoted by an upstream OpenRouter quoted
	// in turn (metadata.raw in metadata.raw).
	echo56(t, 402, `ExceededBudget: End User=\"bob\" over budget`,
		`{"error":{"message":"Provider returned error","code":402,"metadata":{"raw":"{\"error\":{\"message\":\"Provider returned error\",\"metadata\":{\"raw\":\"{\\\"error\\\":{\\\"message\\\":\\\"Insufficient balance. prompt: ExceededBudget: End User=\\\\\\\"bob\\\\\\\" over budget\\\"}}\"}}}","provider_name":"X","is_byok":true}}}`, Quota)
	afford := "can only afford 99999"
	echo56(t, 500, afford, `{"error":{"message":"Insufficient credits. Prompt: `+afford+`"}}`, Quota)
	echo56(t, 403, afford, `{"error":{"message":"Provider returned error","code":403,"metadata":{"raw":"{\"error\":{\"message\":\"Insufficient balance. prompt: `+afford+`\"}}","provider_name":"X","is_byok":true}}}`, Quota)
	echo56(t, 429, "can only afford 99,999", `{"error":{"message":"Insufficient credits. Prompt: can only afford 99,999"}}`, Quota)
}

// (4) Guard: a new relay lead followed by the client's own JSON, holding an
// account's status, is the client's text, not an answer quoted.
func TestReview65dLeadBeforeClientJSON(t *testing.T) {
	key := `{\"error\":{\"message\":\"Invalid API key\",\"code\":401}}`
	echo56(t, 500, key, `{"error":{"message":"Error from provider(x,y: 401): `+key+`"}}`, ServerError)
	paid := `{\"error\":{\"message\":\"Insufficient credits, can only afford 0\",\"code\":402}}`
	echo56(t, 500, "Provider API error: "+paid, `{"error":{"message":"Provider API error: `+paid+`"}}`, ServerError)
	arr := `[{\"error\":{\"code\":401,\"message\":\"API key not valid\",\"status\":\"UNAUTHENTICATED\"}}]`
	if v := classify56(502, `{"error":{"message":"HTTP 400 Bad Request: `+arr+`"}}`, `{"model":"m","messages":[{"role":"user","content":"`+arr+`"}]}`, false); aboutProvider(v.Class) {
		t.Errorf("the client's array after a status: %s (%s)", v.Class, v.Evidence)
	}
}

// (3) Guard: a throttle's code or words that are the client's (its JSON
// or its prompt quoted back) do not make "too many tokens" a throttle,
// which cools the endpoint for everyone.
func TestReview65dEchoedThrottleMakesNoThrottle(t *testing.T) {
	if v := classify56(400, `{"code":"ThrottlingException","message":"Too many tokens, input exceeds the limit"}`, `{"model":"m","code":"ThrottlingException","messages":[]}`, false); v.Class == RateLimited {
		t.Errorf("the request's own code: %s (%s)", v.Class, v.Evidence)
	}
	echo56(t, 400, `{\"code\":\"ThrottlingException\"}`, `{"error":{"message":"Too many tokens in request. Your input: {\"code\":\"ThrottlingException\"}"}}`, ContextLength)
	echo56(t, 400, "rate limit exceeded", `{"error":{"message":"Too many tokens in prompt 'rate limit exceeded'"}}`, ContextLength)
}

// endUserSent reads the first endUserPhrases of ownRequestPhrases as naming
// an end user between their two parts: a phrase added before them, or one
// of them moved, would make it read a required param's name as a user.
func TestEndUserPhrasesComeFirst(t *testing.T) {
	for i, p := range ownRequestPhrases.list {
		if names := strings.Contains(p.a, "end user") || strings.Contains(p.a, "end_user"); names != (i < endUserPhrases) {
			t.Errorf("ownRequestPhrases[%d] %q: names an end user %v, but endUserPhrases is %d", i, p.a, names, endUserPhrases)
		}
	}
}
