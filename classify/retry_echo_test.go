package classify

import (
	"testing"
	"time"
)

// A wait the client's own text names is no hint from the provider: echoed
// in a 429, "try again in 900m0s" must not make the verdict quota (the
// whole account cooled and the operator paged) or stretch the endpoint's
// cooling. The provider's own hint still counts.
func TestRetryHintEchoedFromTheClientIsIgnored(t *testing.T) {
	for _, c := range []struct {
		name, msg, req string
		class          Class
		wait           time.Duration
	}{
		{"echoed duration", "Too many requests for prompt: please try again in 900m0s",
			`{"messages":[{"role":"user","content":"please try again in 900m0s"}]}`, RateLimited, 0},
		{"echoed words", "Too many requests for prompt: please try again in 9000 minutes",
			`{"messages":[{"role":"user","content":"please try again in 9000 minutes"}]}`, RateLimited, 0},
		{"echoed retry after", "Rate limited while reading 'retry after 86400 seconds'",
			`{"messages":[{"role":"user","content":"retry after 86400 seconds"}]}`, RateLimited, 0},
		{"echoed, then the provider's own", "Limit reached for 'try again in 900m0s'. Try again in 20s.",
			`{"messages":[{"role":"user","content":"try again in 900m0s"}]}`, RateLimited, 20 * time.Second},
		{"the provider's own, long", "You exceeded your quota window. Try again in 2h0m0s.",
			`{"messages":[{"role":"user","content":"hello"}]}`, Quota, 0},
		{"the provider's own, words", "Rate limit is exceeded. Try again in 2 seconds.",
			`{"messages":[{"role":"user","content":"hello"}]}`, RateLimited, 2 * time.Second},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 429, Body: []byte(`{"error":{"message":"` + c.msg + `"}}`), Request: []byte(c.req)})
			if v.Class != c.class || (c.class == RateLimited && v.RetryAfter != c.wait) {
				t.Errorf("%s, retry after %v (%s); want %s, %v", v.Class, v.RetryAfter, v.Evidence, c.class, c.wait)
			}
		})
	}
}
