package e2e

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32h. OpenAI-style answers carry both windows' resets. On a
// tokens-per-minute 429 (the request needs more tokens than remain, so
// neither remaining-* is 0) the requests window's reset is tiny (one request
// of an RPM window refills in 120 ms) and unrelated to the throttle. Since
// 67167a0 headerWait takes the SOONER reset as the guess, so with no wait in
// the body the endpoint cools for 120 ms: it is tried first again by the very
// next request, meets the same 429, and is never really cooled (before, the
// longer reset, 59 s, capped at max_cooldown). The tokens throttle must cool
// for something that relates to it (the tokens window's reset, or cooldown).
func TestUnrelatedWindowsTinyResetIsNoCooldown_review32h(t *testing.T) {
	tpm := upstreamtest.Step{Status: 429,
		Header: map[string]string{
			"X-Ratelimit-Limit-Requests":     "500",
			"X-Ratelimit-Remaining-Requests": "499",
			"X-Ratelimit-Reset-Requests":     "120ms",
			"X-Ratelimit-Limit-Tokens":       "30000",
			"X-Ratelimit-Remaining-Tokens":   "500",
			"X-Ratelimit-Reset-Tokens":       "59s",
		},
		Body: `{"error":{"message":"Rate limit reached for model-a in organization org-x on tokens per min (TPM): Limit 30000, Used 29500, Requested 1000.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(tpm), "q": script(ok("model-b", "from b"))})
	g := start(t, `
health: {cooldown: 30s, max_cooldown: 5m}
retry: {max_wait: 0s}
`+twoTargets, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p rate_limited next_target", "b/q ok done")
	t.Logf("retry_after_ms of the TPM 429: %d", d.Attempts[0].RetryAfterMS)
	time.Sleep(300 * time.Millisecond)
	e, _ := g.health(t).Endpoint("a", "p")
	if e.State != "cooling" {
		t.Errorf("a/p is %s 300ms after a tokens-per-minute 429 (tokens window resets in 59s): it was cooled for the requests window's 120ms", e.State)
	}
	g.post(t, "r", "").wantStatus(t, 200)
	if got := steps(g.recs.wait(t, 2)); got[0] != "b/q ok done" {
		t.Errorf("the next request went to the throttled endpoint first again: %q", got)
	}
}
