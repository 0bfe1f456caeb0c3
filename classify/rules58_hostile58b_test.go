package classify

import "testing"

// hostile58b: a 402 "maximum possible cost" over a balance below zero (an
// account that owes: post-paid overage, a charge that settled after the
// reservation) is an empty account, not a request too big for a positive
// balance. emptyBalance skipped ' ' and '$' and read zeros only: a '-'
// made the balance "positive", the verdict overflow, and the account was
// never cooled (overflow: next endpoint, no cooling), so every request
// tries it first.
func TestHostile58bMaximumPossibleCostOverANegativeBalance(t *testing.T) {
	for _, bal := range []string{"$-0.0150", "-$0.0150"} {
		body := `{"error":{"type":"insufficient_credits","code":"INSUFFICIENT_CREDITS","status":402,"message":"Insufficient credits for this request. Maximum possible cost: $0.2000. Available balance: ` + bal + `. Shortfall: $0.2150."}}`
		want56(t, "a negative balance "+bal, classify56(402, body, "", false), Quota, "")
	}
}

// hostile58b: a bare 409 (no body a reader can use) was made bad_request
// in round 58: the walk stopped at the first endpoint, no failover. The OpenAI SDK reads
// a 409 as a lock timeout and retries it (openai-node client.js
// shouldRetry: "// Retry on lock timeouts. if (response.status === 409)
// return true;"; the Stainless SDKs for Anthropic likewise): a transient
// condition of the endpoint, not proof the request is wrong. Before round
// 58 it was unknown (next endpoint, next target). behaviour.md's own
// definition of bad_request: "the input is wrong, and the body proves it".
func TestHostile58bBare409IsNoProofTheRequestIsWrong(t *testing.T) {
	v := classify56(409, ``, "", false)
	if v.Class == BadRequest {
		t.Errorf("a bare 409 (openai-node retries it as a lock timeout): %s (%s), which stops failover; want unknown as before round 58", v.Class, v.Evidence)
	}
}
