package classify

import "testing"

// Review 67d: LiteLLM's rate limiter throttling the end user the client
// named ("user", "safety_identifier", "metadata.user_id") is the request's
// own principal, as its end-user budget is: bad_request, nothing cooled.
// An end user the client did not send (the operator's provider headers
// name it: the whole account at the relay), and the limiter's other
// descriptors (the operator's key), stay rate_limited.
func TestReview67dEndUserThrottleIsTheRequests(t *testing.T) {
	throttle := func(d, v string) string {
		return `{"error":{"message":"Rate limit exceeded for ` + d + `: ` + v + `. Limit type: requests. Current limit: 5, Remaining: 0. Limit resets at: 2026-12-07 08:31:00 UTC","type":"None","param":"None","code":"429"}}`
	}
	for _, c := range []struct {
		name, body, req string
		want            Class
	}{
		{"user", throttle("end_user", "u-1"), `{"model":"m","user":"u-1","messages":[]}`, BadRequest},
		{"an email", throttle("end_user", "bob@example.com"), `{"model":"m","user":"bob@example.com","messages":[]}`, BadRequest},
		{"ends with a dot", throttle("end_user", "cust.42."), `{"model":"m","user":"cust.42.","messages":[]}`, BadRequest},
		{"safety_identifier", throttle("end_user", "sid-9"), `{"model":"m","safety_identifier":"sid-9","input":"hi"}`, BadRequest},
		{"metadata.user_id", throttle("end_user", "claude-u"), `{"model":"m","metadata":{"user_id":"claude-u"},"messages":[]}`, BadRequest},
		{"tokens", `{"error":{"message":"Rate limit exceeded for end_user: u-1. Limit type: tokens. Current limit: 100, Remaining: 0. Limit resets at: 2026-12-07 08:31:00 UTC"}}`, `{"user":"u-1","messages":[]}`, BadRequest},
		// The operator's end user (a header), not one the client sent.
		{"header end user", throttle("end_user", "detour-prod"), `{"model":"m","user":"u-1","messages":[]}`, RateLimited},
		{"no user sent", throttle("end_user", "detour-prod"), `{"model":"m","messages":[]}`, RateLimited},
		// The operator's key at the relay.
		{"api_key", throttle("api_key", "b2f139a7..."), `{"model":"m","user":"u-1","messages":[]}`, RateLimited},
		{"team", throttle("team", "t-1"), `{"model":"m","user":"t-1","messages":[]}`, RateLimited},
	} {
		if v := classify56(429, c.body, c.req, false); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
