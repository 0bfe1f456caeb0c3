package e2e

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32e. A 429 with Retry-After: 2 (within retry.max_wait) cools
// a/p at once for 2s and the request waits 2s and tries a/p again. By then
// the cooldown has passed and a/p is probing, so when the retry gets the
// same honest "Retry-After: 2" its failure is read as a failed probe and
// doubles the cooldown to 4s: the endpoint cools twice as long as the
// upstream asked (docs/behaviour.md, Health: "rate_limited cools it at once
// for Retry-After"). The server_error path defers its cooling for exactly
// this reason (coolDeferred); rate_limited does not.
func TestRateLimitRetryDoesNotCoolPastTheHint_review32e(t *testing.T) {
	limited := upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "2"},
		Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(limited), "q": script(ok("model-b", "from b"))})
	g := start(t, `
health: {cooldown: 1s, max_cooldown: 1m}
retry: {max_wait: 3s}
`+twoTargets, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), "a/p rate_limited retry", "a/p rate_limited next_target", "b/q ok done")
	e, _ := g.health(t).Endpoint("a", "p")
	if e.CooldownUntil == nil {
		t.Fatalf("a/p is %s, not cooling", e.State)
	}
	if left := time.Until(*e.CooldownUntil); left > 2500*time.Millisecond {
		t.Errorf("a/p cools for %v more after an answer that said Retry-After: 2; want at most 2s", left.Round(100*time.Millisecond))
	}
}
