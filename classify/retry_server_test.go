package classify

import (
	"net/http"
	"testing"
	"time"
)

// A server error whose answer names a wait (a 503 in maintenance with
// Retry-After, an overloaded 429 or 529 with one) carries it: the endpoint
// is not asked again before it (docs/behaviour.md, "Rules"); a 500 or 502
// does not. Only the standard headers count: OpenAI's x-ratelimit-reset-* ride on every answer
// and describe the rate-limit window, not the outage; body wording may be
// the client's echo. A long wait stays server_error (maintenance, not an
// allowance spent).
func TestServerErrorCarriesRetryAfter(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		h      map[string]string
		body   string
		want   time.Duration
	}{
		{"503 Retry-After", 503, map[string]string{"Retry-After": "120"}, `Service Unavailable`, 120 * time.Second},
		{"529 retry-after", 529, map[string]string{"Retry-After": "15"},
			`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, 15 * time.Second},
		{"429 overload words, no rate-limit code", 429, map[string]string{"Retry-After": "30"},
			`{"error":{"message":"The model is currently at maximum capacity. Please try again later."}}`, 30 * time.Second},
		{"503 retry-after-ms", 503, map[string]string{"Retry-After-Ms": "1500"}, `{"error":{"message":"internal error"}}`, 1500 * time.Millisecond},
		{"503 retry-after-ms under a millisecond: one", 503, map[string]string{"Retry-After-Ms": "0.2"}, `Service Unavailable`, time.Millisecond},
		// A proxy's boilerplate on every error, where one request that made
		// the upstream fail would cool it for everyone: no hint.
		{"500 Retry-After", 500, map[string]string{"Retry-After": "30"}, `{"error":{"message":"internal error"}}`, 0},
		{"502 Retry-After", 502, map[string]string{"Retry-After": "30"}, `<html>Bad gateway</html>`, 0},
		{"503 two hours: still server_error", 503, map[string]string{"Retry-After": "7200"}, `down for maintenance`, 2 * time.Hour},
		{"500 with OpenAI's rate-limit window headers only", 500,
			map[string]string{"X-Ratelimit-Reset-Requests": "6m0s", "X-Ratelimit-Remaining-Requests": "0"},
			`{"error":{"message":"The server had an error while processing your request.","type":"server_error"}}`, 0},
		{"503 body wording only", 503, nil, `{"error":{"message":"Service busy, please try again in 30 seconds"}}`, 0},
		{"502 no hint", 502, nil, `<html>Bad gateway</html>`, 0},
	} {
		h := http.Header{}
		for k, v := range c.h {
			h.Set(k, v)
		}
		v := Classify(Response{Status: c.status, Header: h, Body: []byte(c.body)})
		if v.Class != ServerError || v.RetryAfter != c.want {
			t.Errorf("%s: %s (%s) Retry-After %v, want server_error %v", c.name, v.Class, v.Evidence, v.RetryAfter, c.want)
		}
	}
	// An operator rule that makes an answer a server error keeps its hint too.
	c := &Classifier{Rules: []Rule{{Status: []int{503, 200}, Class: ServerError}}}
	if v := c.Classify(Response{Status: 503, Header: http.Header{"Retry-After": {"9"}}}); v.RetryAfter != 9*time.Second {
		t.Errorf("operator rule server_error on a 503: Retry-After %v, want 9s", v.RetryAfter)
	}
	// Not on an error inside a 2xx, whose headers are the answer's.
	if v := c.Classify(Response{Status: 200, Header: http.Header{"Retry-After": {"9"}}, Body: []byte(`{"error":"x"}`)}); v.RetryAfter != 0 {
		t.Errorf("operator rule server_error on a 200: Retry-After %v, want none", v.RetryAfter)
	}
}
