package classify

import (
	"testing"
	"time"
)

// TestRetryHintsInWords: the wait a 429's words name, however they word it
// (docs/behaviour.md, "Retry hints"). Gemini's quota message through a relay
// that drops its RetryInfo ("Please retry in 31.44s."), a proxy's throttle
// in hours or days (express-rate-limit's "please try again in 1 hour", a
// common front), "retry after 2 hours". An hour or more is a spent
// allowance (quota); less is the throttle's Retry-After.
func TestRetryHintsInWords(t *testing.T) {
	gemini := `{"error":{"code":429,"message":"You exceeded your current quota, please check your plan and billing details. Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_input_token_count, limit: 16000, model: gemma-4-26b\nPlease retry in 31.44s.","status":"RESOURCE_EXHAUSTED"}}`
	cases := []struct {
		name, body string
		class      Class
		wait       time.Duration
	}{
		{"gemini's retry in, details dropped", gemini, RateLimited, 31440 * time.Millisecond},
		{"retry in seconds", `{"error":{"message":"Rate limit exceeded. Please retry in 45s."}}`, RateLimited, 45 * time.Second},
		{"try again in an hour", `{"message":"Too many requests from this IP, please try again in 1 hour!"}`, Quota, 0},
		{"try again in days", `{"error":{"message":"Too many requests. Please try again in 3 days."}}`, Quota, 0},
		{"retry after hours", `{"error":{"message":"Rate limit exceeded. Retry after 2 hours."}}`, Quota, 0},
		{"retry after minutes", `{"error":{"message":"Rate limit exceeded. Retry after 5 minutes."}}`, RateLimited, 5 * time.Minute},
		{"retry in a moment names no wait", `{"error":{"message":"Too many requests. Please retry in a moment."}}`, RateLimited, 0},
	}
	for _, c := range cases {
		v := Classify(Response{Status: 429, Body: []byte(c.body), Request: []byte(`{"model":"m","messages":[]}`), Model: "m"})
		if v.Class != c.class || v.RetryAfter != c.wait {
			t.Errorf("%s: got %s (%s) wait %v, want %s wait %v", c.name, v.Class, v.Evidence, v.RetryAfter, c.class, c.wait)
		}
	}
}
