package classify

import (
	"net/http"
	"testing"
	"time"
)

// Review 32e: x-ratelimit-reset-* ride on every OpenAI-style answer and
// tell when a window is whole again, not how long to wait. Where neither
// x-ratelimit-remaining-* is 0 they are no wait at all: the body's own wait,
// else the configured cooldown, decides, and none makes a 429 quota (the
// account cooled for account_cooldown, the operator paged).
func TestResetOfAWindowNotSpentIsOnlyAGuess(t *testing.T) {
	day := http.Header{
		"X-Ratelimit-Limit-Requests":     {"200"},
		"X-Ratelimit-Remaining-Requests": {"190"},
		"X-Ratelimit-Reset-Requests":     {"1h12m0s"},
		"X-Ratelimit-Limit-Tokens":       {"30000"},
		"X-Ratelimit-Remaining-Tokens":   {"500"},
		"X-Ratelimit-Reset-Tokens":       {"1s"},
	}
	tpm := []byte(`{"error":{"message":"Rate limit reached for model-a in organization org-x on tokens per min (TPM): Limit 30000, Used 29500, Requested 1000. Please try again in 1s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`)
	v := Classify(Response{Status: 429, Header: day, Body: tpm})
	if v.Class != RateLimited || v.RetryAfter != time.Second {
		t.Errorf("TPM 429 beside a day window's reset: %s %v (%s), want rate_limited 1s", v.Class, v.RetryAfter, v.Evidence)
	}

	// Both resets long, neither window spent, no wait in the body: still
	// a throttle, not a spent allowance.
	long := http.Header{
		"X-Ratelimit-Remaining-Requests": {"3"},
		"X-Ratelimit-Reset-Requests":     {"20h"},
		"X-Ratelimit-Remaining-Tokens":   {"900"},
		"X-Ratelimit-Reset-Tokens":       {"3h"},
	}
	v = Classify(Response{Status: 429, Header: long, Body: []byte(`{"error":{"message":"Too many requests","type":"requests","code":"rate_limit_exceeded"}}`)})
	if v.Class != RateLimited || v.RetryAfter != 0 {
		t.Errorf("long resets, no window spent: %s %v (%s), want rate_limited with no wait (the configured cooldown)", v.Class, v.RetryAfter, v.Evidence)
	}
	// Nor is a requests window's few milliseconds a tokens throttle's wait
	// (review 32h): the endpoint would cool for 120ms.
	tpmOnly := http.Header{
		"X-Ratelimit-Remaining-Requests": {"499"},
		"X-Ratelimit-Reset-Requests":     {"120ms"},
		"X-Ratelimit-Remaining-Tokens":   {"200"},
		"X-Ratelimit-Reset-Tokens":       {"59s"},
	}
	v = Classify(Response{Status: 429, Header: tpmOnly, Body: []byte(`{"error":{"message":"Rate limit reached on tokens per min (TPM)","type":"tokens","code":"rate_limit_exceeded"}}`)})
	if v.Class != RateLimited || v.RetryAfter != 0 {
		t.Errorf("TPM 429 beside a requests window's 120ms: %s %v (%s), want rate_limited with no wait", v.Class, v.RetryAfter, v.Evidence)
	}

	// A window that says it is spent is believed: a day's requests gone
	// is an allowance spent.
	spent := http.Header{
		"X-Ratelimit-Remaining-Requests": {"0"},
		"X-Ratelimit-Reset-Requests":     {"2h30m"},
		"X-Ratelimit-Remaining-Tokens":   {"5000"},
		"X-Ratelimit-Reset-Tokens":       {"1s"},
	}
	v = Classify(Response{Status: 429, Header: spent, Body: []byte(`{"error":{"message":"Too many requests","type":"requests","code":"rate_limit_exceeded"}}`)})
	if v.Class != Quota {
		t.Errorf("a spent window refilling in 2h30m: %s %v (%s), want quota", v.Class, v.RetryAfter, v.Evidence)
	}
}
