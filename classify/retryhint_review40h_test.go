package classify

import (
	"testing"
	"time"
)

// A user relies on a 429's stated wait ("Please try again in 20s.") being
// the Retry-After its client is told and the endpoint's cooldown, whatever
// sentence follows it. Vocabulary round 40 read a Go duration's groups one
// blank apart ("reset after 140h 21m 10s") and then joined a group across
// the full stop that ends the hint's sentence: "20s. 5m tokens …" was read
// as the duration "20s. 5m", which parses as nothing, and the wait was
// lost (0: the endpoint cooled for `cooldown`, the client got no hint).
// The bodies are constructed: OpenAI's 429 wording ("Please try again in
// 20s.") with a sentence after it that opens with a duration. The old code
// read each wait right (the full stop ended the duration).
func TestRetryHintStopsAtItsSentence_review40h(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		msg  string
		want time.Duration
	}{
		{"Too many requests. Please try again in 20s. 5m tokens were used in the last minute.", 20 * time.Second},
		{"Rate limit reached. Please try again in 1.5s. 10s windows apply to this model.", 1500 * time.Millisecond},
		{"Too many requests. Retry in 45s. 3h of heavy use slows every key.", 45 * time.Second},
	} {
		v := Classify(Response{Status: 429, Body: []byte(`{"error":{"message":"` + c.msg + `","type":"requests"}}`), Request: req, Model: "m"})
		if v.Class != RateLimited || v.RetryAfter != c.want {
			t.Errorf("%q: %s (%s), wait %v; want rate_limited, wait %v", c.msg, v.Class, v.Evidence, v.RetryAfter, c.want)
		}
	}
}
