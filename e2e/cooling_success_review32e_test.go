package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32e. One 404 "No endpoints found" (OpenRouter says it while
// every provider of a model is briefly out) cools endpoint a/p for
// unavailable_cooldown (24h). Health never denies, so when b fails a later
// request still reaches a/p, last, and a/p answers 200: the model is there.
// That success is the best evidence there is that the verdict "gone" was
// wrong, yet the record stays cooling for the rest of the day: /v1/health
// shows a serving endpoint as gone, and every request keeps going to b
// first. A success at a cooling endpoint must end its cooldown (as a
// probe's does).
func TestSuccessAtACoolingEndpointEndsItsCooldown_review32e(t *testing.T) {
	gone := upstreamtest.Step{Status: 404, Body: `{"error":{"message":"No endpoints found for model-a.","code":404}}`}
	down := upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal error"}}`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(gone, ok("model-a", "from a")),
		"q": script(ok("model-b", "from b"), down),
	})
	g := start(t, `
health: {cooldown: 1s, max_cooldown: 1m, unavailable_cooldown: 24h}
retry: {max_wait: 0s}
`+strings.Replace(twoTargets, "{name: r, targets: [a, b]}", "{name: r, targets: [a, b], fallback_on: [unavailable, server_error]}", 1), fs)
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), "a/p unavailable next_target", "b/q ok done")

	// b fails now; a/p, cooling, is tried last and serves.
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 2)
	last := d.Attempts[len(d.Attempts)-1]
	if last.Target != "a" || last.Class != "" {
		t.Fatalf("second request did not end with a success at a/p: %+v", d.Attempts)
	}
	e, _ := g.health(t).Endpoint("a", "p")
	if e.State == "cooling" && e.CooldownUntil != nil && time.Until(*e.CooldownUntil) > time.Hour {
		t.Errorf("a/p just answered 200 but /v1/health still says %s (last_class %s) until %v: a day of traffic kept off a serving endpoint",
			e.State, e.LastClass, e.CooldownUntil.Format(time.RFC3339))
	}
}
