package classify

import "testing"

// Review 58: round 58's rules against answers they were not written for.

// The 401 tier-gate phrase ("only available to … users", gap 24) also
// read a 401 that says the caller is not signed in at all: the words a
// missing or bad credential is told in. That is auth (account cooldown,
// page, move on), not forbidden (no page, no move).
func TestReview58TierGateLeavesSignInToAuth(t *testing.T) {
	for _, body := range []string{
		`{"error":{"message":"This endpoint is only available to authenticated users. Please provide a valid API key.","type":"invalid_request_error"}}`,
		`{"error":"This API is only available to logged-in users"}`,
		`{"detail":"Only available to registered users: invalid API key"}`,
	} {
		want56(t, body, classify56(401, body, "", false), Auth, "")
	}
}

// Gatewayz's pre-flight 402 "Maximum possible cost: $X. Available balance:
// $Y." is overflow over a positive balance and quota over a zero one
// (emptyBalance). A balance below zero — an account in arrears — read as
// positive: emptyBalance looked for "0" and "." only, so "-$0.50" or
// "$-0.50" was not empty, and the answer said "a smaller request is served"
// to an account that can serve none. (Gatewayz's wording with a negative
// balance is not recorded; the rule reads a '-' as a balance that is gone.)
func TestReview58MaximumPossibleCostOverANegativeBalance(t *testing.T) {
	for _, body := range []string{
		`{"detail":"Insufficient credits for this request. Maximum possible cost: $0.2000. Available balance: $-0.5000."}`,
		`{"detail":"Insufficient credits for this request. Maximum possible cost: $0.2000. Available balance: -$0.5000."}`,
	} {
		if v := classify56(402, body, "", false); v.Class != Quota {
			t.Errorf("%s: %s (%s), want quota", body, v.Class, v.Evidence)
		}
	}
}
