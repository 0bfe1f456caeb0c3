package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A 429 typed rate_limit_error whose message speaks of the provider's
// traffic keeps the upstream's Retry-After: the same endpoint is tried
// again after it, not counted as the endpoint's failure (docs/behaviour.md,
// "Wording that names nothing").
func TestOverload429WithRateLimitTypeKeepsRetryAfter(t *testing.T) {
	busy := upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "1"},
		Body: `{"type":"error","error":{"type":"rate_limit_error","message":"We're experiencing high traffic right now! Please try again soon."}}`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(busy, ok("model-a", "hi")),
		"p2": script(ok("model-a", "p2")), "q": script(ok("model-b", "q")),
	})
	g := start(t, twoEndpoints, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p1 rate_limited retry", "a/p1 ok done")
	if a := d.Attempts[0]; a.Counted || a.RetryAfterMS != 1000 {
		t.Errorf("the 429's attempt: %+v, want rate_limited, not counted, retry_after_ms 1000", a)
	}
}
