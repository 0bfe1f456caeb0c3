package classify

import (
	"net/http"
	"testing"
	"time"
)

// A 429 whose body's own type or code says rate limit stays rate_limited
// beside overload wording, as the words "rate limit" beside it do, and
// keeps the upstream's Retry-After for the endpoint's cooling and the
// retry's wait; overload wording alone, or beside a code that says the
// server is at fault, stays the provider's load (server_error), as the
// corpus labels it, and keeps the Retry-After header too (a server error
// that names its wait: docs/behaviour.md, "Rules").
func TestOverload429WithRateLimitCode(t *testing.T) {
	for _, c := range []struct {
		name, body, class, ev string
		retry                 time.Duration
	}{
		{"anthropic-style rate_limit_error, high traffic",
			`{"type":"error","error":{"type":"rate_limit_error","message":"We're experiencing high traffic right now! Please try again soon."}}`,
			"rate_limited", "type:rate_limit_error", 20 * time.Second},
		{"openai-style rate_limit_exceeded, over capacity",
			`{"error":{"message":"The model is currently over capacity. Please retry after the indicated time.","type":"requests","code":"rate_limit_exceeded"}}`,
			"rate_limited", "code:rate_limit_exceeded", 20 * time.Second},
		{"too_many_requests, busy",
			`{"error":{"code":"too_many_requests","message":"Model busy, retry later"}}`,
			"rate_limited", "code:too_many_requests", 20 * time.Second},
		{"google's RATE_LIMIT_EXCEEDED reason, high traffic",
			`{"error":{"code":429,"message":"The service is experiencing high traffic, please retry.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED","domain":"googleapis.com"}]}}`,
			"rate_limited", "gemini:reason=RATE_LIMIT_EXCEEDED", 20 * time.Second},
		// The provider's load: server_error, with the header's wait.
		{"overload wording alone",
			`{"error":{"message":"llama-3 is currently over capacity. Please try again and back off exponentially."}}`,
			"server_error", "phrase:over capacity", 20 * time.Second},
		{"overload wording with a server-side type",
			`{"error":{"message":"That model is currently overloaded with other requests.","type":"server_error","param":null,"code":null}}`,
			"server_error", "phrase:overloaded", 20 * time.Second},
		{"overload wording with Google's generic RESOURCE_EXHAUSTED",
			`{"error":{"code":429,"message":"The service is experiencing high traffic, please retry.","status":"RESOURCE_EXHAUSTED"}}`,
			"server_error", "phrase:high traffic", 20 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 429, Header: http.Header{"Retry-After": {"20"}}, Body: []byte(c.body)})
			if !v.Failed || v.Class.String() != c.class || v.Evidence != c.ev {
				t.Fatalf("%+v, want %s (%s)", v, c.class, c.ev)
			}
			if v.RetryAfter != c.retry {
				t.Errorf("RetryAfter %v, want %v", v.RetryAfter, c.retry)
			}
		})
	}
	// The same body as a 503 is the server's, whatever its type says.
	v := Classify(Response{Status: 503, Body: []byte(`{"type":"error","error":{"type":"rate_limit_error","message":"We're experiencing high traffic right now!"}}`)})
	if v.Class != ServerError {
		t.Errorf("503: %+v, want server_error", v)
	}
}
