package e2e

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A 429 typed rate_limit_error whose message speaks of the provider's
// traffic keeps the upstream's Retry-After: the same endpoint is tried
// again after it, not counted as the endpoint's failure (docs/behaviour.md,
// "Wording that names nothing").
func TestOverload429WithRateLimitTypeKeepsRetryAfter(t *testing.T) {
	busy := upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "1"},
		Body: `{"type":"error","error":{"type":"rate_limit_error","message":"We're experiencing high traffic right now! Please try again soon."}}`}
	_, _, d := p1FirstAnswers(t, busy)
	wantSteps(t, d, "a/p1 rate_limited retry", "a/p1 ok done")
	if a := d.Attempts[0]; a.Counted || a.RetryAfterMS != 1000 {
		t.Errorf("the 429's attempt: %+v, want rate_limited, not counted, retry_after_ms 1000", a)
	}
}

// A 429 that speaks of the provider's load and names no rate limit is the
// provider's overload, server_error — and the wait its Retry-After names is
// kept: the same endpoint is tried again only after it, and the endpoint
// cools for it (docs/behaviour.md, "Rules").
func TestOverload429WithoutRateLimitCodeKeepsRetryAfter(t *testing.T) {
	busy := upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "1"},
		Body: `{"error":{"message":"The model is currently at maximum capacity. Please try again later."}}`}
	_, took, d := p1FirstAnswers(t, busy)
	if took < time.Second {
		t.Errorf("answered after %s: the retry did not wait for the Retry-After (1s)", took)
	}
	wantSteps(t, d, "a/p1 server_error retry", "a/p1 ok done")
	if a := d.Attempts[0]; !a.Counted || a.RetryAfterMS != 1000 {
		t.Errorf("the 429's attempt: %+v, want server_error, counted, retry_after_ms 1000", a)
	}
}

// A 503 whose Retry-After is past retry.max_wait is not tried again: the
// walk moves on at once, and the endpoint cools for the wait the upstream
// named, as /v1/health shows — not after failure_threshold such answers.
func TestServerErrorRetryAfterCoolsAndMovesOn(t *testing.T) {
	down := upstreamtest.Step{Status: 503, Header: map[string]string{"Retry-After": "60"}, Body: `Service Unavailable`}
	g, _, d := p1FirstAnswers(t, down)
	wantSteps(t, d, "a/p1 server_error next_endpoint", "a/p2 ok done")
	if a := d.Attempts[0]; !a.Counted || a.RetryAfterMS != 60000 {
		t.Errorf("the 503's attempt: %+v, want counted, retry_after_ms 60000", a)
	}
	e, _ := g.health(t).Endpoint("a", "p1")
	if e.State != "cooling" || e.CooldownUntil == nil ||
		time.Until(*e.CooldownUntil) < 50*time.Second || time.Until(*e.CooldownUntil) > 61*time.Second {
		t.Errorf("a/p1 after a 503 with Retry-After 60: %+v, want cooling for about a minute", e)
	}
}

// p1FirstAnswers serves route r of twoEndpoints with p1 answering first
// with step, then every endpoint a success, and sends one request, which
// must succeed: the gateway, how long the request took, its record.
func p1FirstAnswers(t *testing.T, step upstreamtest.Step) (*gateway, time.Duration, *decision.Decision) {
	t.Helper()
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(step, ok("model-a", "p1")),
		"p2": script(ok("model-a", "p2")), "q": script(ok("model-b", "q")),
	})
	g := start(t, twoEndpoints, fs)
	began := time.Now()
	g.post(t, "r", "").wantStatus(t, 200)
	took := time.Since(began)
	return g, took, g.recs.wait(t, 1)
}
