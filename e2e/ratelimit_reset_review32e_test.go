package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32e. A tokens-per-minute 429 says "Please try again in 1s". Its
// x-ratelimit-* headers describe two windows, neither exhausted
// (remaining-requests 190, remaining-tokens 500): the requests window is a
// per-day one (Groq's documented layout; OpenAI's free tier's RPD), whose
// reset — the time until it is whole again — is over an hour. That reset is
// not a wait: nothing about this answer asks to come back in an hour. The
// throttle must stay rate_limited: the account must not cool for
// account_cooldown (nor page), and the client must not be told to go away.
func TestResetOfAWindowNotExhaustedIsNoWait_review32e(t *testing.T) {
	tpm := upstreamtest.Step{Status: 429,
		Header: map[string]string{
			"X-Ratelimit-Limit-Requests":     "200",
			"X-Ratelimit-Remaining-Requests": "190",
			"X-Ratelimit-Reset-Requests":     "1h12m0s", // 10 requests of a 200/day window to refill
			"X-Ratelimit-Limit-Tokens":       "30000",
			"X-Ratelimit-Remaining-Tokens":   "500",
			"X-Ratelimit-Reset-Tokens":       "1s",
		},
		Body: `{"error":{"message":"Rate limit reached for model-a in organization org-x on tokens per min (TPM): Limit 30000, Used 29500, Requested 1000. Please try again in 1s.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(tpm), "q": script(ok("model-b", "from b"))})
	g := start(t, `
health: {cooldown: 1s, max_cooldown: 1m, account_cooldown: 1h}
retry: {max_wait: 0s}
`+twoTargets, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	if got := d.Attempts[0].Class; got != "rate_limited" {
		t.Errorf("a TPM 429 that says \"try again in 1s\" was filed %s (evidence %s); want rate_limited", got, d.Attempts[0].Evidence)
	}
	if a, _ := g.health(t).Account("p"); a.State != "healthy" {
		t.Errorf("account p is %s (last_class %s, until %v) after one 1-second throttle; want healthy", a.State, a.LastClass, a.CooldownUntil)
	}
}
