package classify

import (
	"testing"
	"time"
)

// A 429 whose wait is a number of seconds in a member of its own, not a
// header, is honoured as a Retry-After is: the endpoint cools that long
// and the client is told it (docs/behaviour.md, "Retry hints"). Before,
// such a 429 cooled for the default and the client was told nothing.
// The bodies are real answers.
func TestRetryAfterMemberIsARetryHint(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		name, body string
		class      Class
		wait       time.Duration
	}{
		// https://github.com/nodetool-ai/nodetool/issues/5196 (corpus:
		// replicate-throttled-reduced-while-less-than-5-credit-429).
		{"top level (Replicate)", `{"detail":"Request was throttled. Your rate limit for creating predictions is reduced to 6 requests per minute with a burst of 1 requests while you have less than $5.0 in credit. Your rate limit resets in ~5s.","status":429,"retry_after":5}`, RateLimited, 5 * time.Second},
		// https://mixedbread.com/api-reference/rate-limits (corpus:
		// mixedbread-too-many-requests-error-rate-limit-exceeded-429).
		{"in details (Mixedbread)", `{"type":"too_many_requests_error","url":"https://www.mixedbread.com/api-reference","message":"Rate limit exceeded. Please try again later.","details":{"retry_after":60,"limit":"1200","remaining":"0","reset":"1730000000"}}`, RateLimited, time.Minute},
		// https://github.com/Wei-Shaw/claude-relay-service/issues/257
		// (status from the error word the body carries).
		{"camel case (claude-relay-service)", `{"error":"Too Many Requests","message":"Too many requests from this IP, please try again later.","retryAfter":114}`, RateLimited, 114 * time.Second},
	} {
		v := Classify(Response{Status: 429, Body: []byte(c.body), Request: req, Model: "m"})
		if v.Class != c.class || v.RetryAfter != c.wait {
			t.Errorf("%s: got %s (%s) wait %v, want %s wait %v", c.name, v.Class, v.Evidence, v.RetryAfter, c.class, c.wait)
		}
	}
	// Near-misses: a number the client's own JSON carries, quoted back
	// deeper in the answer, is not the upstream's wait; nor is a string.
	for _, body := range []string{
		`{"detail":[{"type":"extra_forbidden","loc":["body","retry_after"],"msg":"Extra inputs are not permitted","input":{"retry_after":86400}}],"error":"Too Many Requests"}`,
		`{"error":{"message":"Rate limit exceeded.","metadata":{"retry_after":86400}}}`,
		`{"error":"Too Many Requests","retry_after":"86400"}`,
	} {
		if v := Classify(Response{Status: 429, Body: []byte(body), Request: req, Model: "m"}); v.RetryAfter != 0 || v.Class != RateLimited {
			t.Errorf("%s: got %s wait %v, want rate_limited and no wait", body, v.Class, v.RetryAfter)
		}
	}
	// A request that names the member itself may have it echoed at the
	// top of the answer: the client's number, not the upstream's wait.
	own := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}],"retryAfter":86400}`)
	if v := Classify(Response{Status: 429, Body: []byte(`{"error":"Too Many Requests","retryAfter":86400}`), Request: own, Model: "m"}); v.RetryAfter != 0 || v.Class != RateLimited {
		t.Errorf("a retryAfter the client sent: got %s wait %v, want rate_limited and no wait", v.Class, v.RetryAfter)
	}
}
