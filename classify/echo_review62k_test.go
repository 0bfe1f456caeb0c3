package classify

import (
	"testing"
)

// Review 62k: the client's words as evidence through the new reads.

// LiteLLM's rate limiter v3 (parallel_request_limiter_v3.py) quotes the
// end user the client named in "user": "Rate limit exceeded for
// end_user: <user>. Limit type: requests. …". The new sub2api phrase
// "monthly" … "limit" (gap 24) then reads the client's user id and
// LiteLLM's own "Limit type" as a monthly limit: a per-minute throttle of
// one end user becomes quota (the relay's account cooled, the operator
// paged) for every client. Since review 67d the throttle of the client's
// own end user is bad_request: as rate_limited it cooled the relay's
// endpoint for everyone (TestReview67dEndUserThrottleCoolsNoSharedRelay).
func TestReview62kMonthlyUserIDMakesQuota(t *testing.T) {
	for _, user := range []string{"monthly", "acme-monthly", "plan_monthly", "Monthly Plan"} {
		req := `{"model":"m","user":"` + user + `","messages":[{"role":"user","content":"hi"}]}`
		body := `{"error":{"message":"Rate limit exceeded for end_user: ` + user + `. Limit type: requests. Current limit: 2, Remaining: 0. Limit resets at: 2026-12-07 08:31:00 UTC","type":"None","param":"None","code":"429"}}`
		v := classify56(429, body, req, false)
		if v.Class != BadRequest {
			t.Errorf("user %q: a per-end-user throttle read %s (%s), want bad_request", user, v.Class, v.Evidence)
		}
	}
}

// error.details.error_code is read at key depth 3, and arrays take no
// depth: an upstream listing the client's rejected objects in an
// error.details array (or quoting one object as error.details) gives the
// client's member the weight of Anthropic's code.
func TestReview62kDetailCodeFromClientJSON(t *testing.T) {
	req := `{"model":"m","metadata":{"error_code":"organization_on_hold"},"messages":[{"role":"user","content":"hi"}]}`
	for _, c := range []struct {
		st   int
		body string
		want Class
	}{
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"metadata: extra inputs are not permitted","details":[{"error_code":"organization_on_hold"}]}}`, BadRequest},
		{400, `{"type":"error","error":{"type":"invalid_request_error","message":"metadata: extra inputs are not permitted","details":{"error_code":"organization_on_hold"}}}`, BadRequest},
		{500, `{"type":"error","error":{"type":"api_error","message":"Internal server error","details":[{"error_code":"thread_not_found"}]}}`, ServerError},
	} {
		v := classify56(c.st, c.body, req, false)
		if v.Class != c.want {
			t.Errorf("%d %s: %s (%s), want %s", c.st, c.body, v.Class, v.Evidence, c.want)
		}
	}
}

// The same LiteLLM throttle with the headers its limiter sends
// (retry-after, x-ratelimit-*): still quota?
func TestReview62kMonthlyUserIDWithRetryAfter(t *testing.T) {
	req := `{"model":"m","user":"monthly","messages":[{"role":"user","content":"hi"}]}`
	body := `{"error":{"message":"Rate limit exceeded for end_user: monthly. Limit type: requests. Current limit: 2, Remaining: 0. Limit resets at: 2026-12-07 08:31:00 UTC","type":"None","param":"None","code":"429"}}`
	v := classify56h(429, body, req, "Retry-After", "60", "X-Ratelimit-Remaining-Requests", "0")
	if v.Class != BadRequest {
		t.Errorf("with Retry-After 60: %s (%s) wait %v, want bad_request (review 67d)", v.Class, v.Evidence, v.RetryAfter)
	}
}

// Envoy's exception-in-type rule gives Bedrock's strong
// ResourceNotFoundException (a gone model: unavailable) to any error.type
// naming it, ahead of "Not found: whose?": a missing resource the client
// named (its file, its guardrail) cools the endpoint. Before today: unknown.
func TestReview62kEnvoyNotFoundClientsResource(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_id":"file-report-77"}}]}]}`
	body := `{"type":"error","error":{"type":"ResourceNotFoundException:http://internal.amazon.com/coral/com.amazon.bedrock/","code":"404","message":"File file-report-77 not found"}}`
	for _, st := range []int{400, 404} {
		v := classify56(st, body, req, false)
		t.Logf("%d -> %s (%s)", st, v.Class, v.Evidence)
		if v.Class == Unavailable {
			t.Errorf("%d: the client's missing file read unavailable (%s): the endpoint cools", st, v.Evidence)
		}
	}
}
