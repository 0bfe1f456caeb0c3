package classify

import "testing"

// Review 32i: "can only afford N" (N > 0) is overflow unless the
// client's request holds the same words. The request holding them is no
// evidence that the upstream is quoting it (a 402 never echoes a prompt):
// a client that pastes OpenRouter's earlier error into its conversation
// ("I got: … can only afford 10114") and asks again with the same
// max_tokens, at the same balance, turns the very same answer into quota,
// which cools the shared account for account_cooldown and pages the
// operator. Client text decides toward the class that cools.
func TestReview32iAffordableEchoMakesQuota(t *testing.T) {
	body := []byte(`{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 65536 tokens, but can only afford 10114. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account","code":402,"metadata":{"provider_name":null}},"user_id":"user_"}`)
	plain := []byte(`{"model":"or","max_tokens":65536,"messages":[{"role":"user","content":"Summarise the report."}]}`)
	pasted := []byte(`{"model":"or","max_tokens":65536,"messages":[{"role":"user","content":"Why did my last call fail? It said: This request requires more credits, or fewer max_tokens. You requested up to 65536 tokens, but can only afford 10114."}]}`)
	for _, c := range []struct {
		name string
		req  []byte
	}{{"plain", plain}, {"pasted error", pasted}} {
		v := Classify(Response{Status: 402, Body: body, Request: c.req, Model: "openai/gpt-4o"})
		if v.Class != Overflow {
			t.Errorf("%s: class %s (evidence %s), want overflow: the same upstream answer, about the same request size", c.name, v.Class, v.Evidence)
		}
	}
}

// Review 32i: "can only afford N" is overflow for any N > 0, so an
// account whose balance is all but spent (continuedev/continue#11154:
// "You requested up to 4096 tokens, but can only afford 222", GPT-5.4 Pro
// on OpenRouter) is never quota: no account cooldown, no page, and every
// request of every client tries it first and fails over, for as long as
// the balance stays near zero. The operator is told only once it reaches
// exactly 0. A balance that cannot pay for a usual answer is the account's
// state, not this request's size.
func TestReview32iAffordableNearlyEmpty(t *testing.T) {
	body := []byte(`{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 4096 tokens, but can only afford 222. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account","code":402,"metadata":{"provider_name":null}}}`)
	req := []byte(`{"model":"or","max_tokens":4096,"messages":[{"role":"user","content":"hi"}]}`)
	if v := Classify(Response{Status: 402, Body: body, Request: req, Model: "openai/gpt-5.4-pro"}); v.Class != Quota {
		t.Errorf("can only afford 222 of 4096: class %s (evidence %s), want quota", v.Class, v.Evidence)
	}
}
