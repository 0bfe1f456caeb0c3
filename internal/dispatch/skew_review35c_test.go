package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// TestAdviceReadsCooldownsOnHealthsClock: over Redis the tracker reads
// Redis's clock (health.clockOf → RedisStore.Now), but the walk advises the
// client against time.Now() (walk.go: w.advise(f, time.Now())), comparing a
// cooldown's end on one clock with now on another. A replica whose clock
// runs an hour behind Redis's tells a client not to retry (and, for a rate
// limit, to wait an hour more) for an endpoint that is back in 5 s.
func TestAdviceReadsCooldownsOnHealthsClock(t *testing.T) {
	for _, c := range []struct {
		name string
		skew time.Duration // Redis's clock minus this replica's
	}{{"clocks agree", 0}, {"replica an hour behind Redis", time.Hour}} {
		t.Run(c.name, func(t *testing.T) {
			script := func(k health.Key, _ int) answer {
				if k.Provider == "p1" {
					return fail(classify.Unavailable)
				}
				return okAnswer
			}
			h := newHarness(t, "  - {name: r, targets: [one, b]}\n", script)
			h.now = time.Now().Add(c.skew) // the tracker's clock: Redis's
			// b's only endpoint cools for 5 s (a rate limit elsewhere).
			h.h.Report(context.Background(), health.Key{Target: "b", Provider: "q"},
				health.Report{Class: "rate_limited", Cool: health.ScopeEndpoint, CoolFor: 5 * time.Second, Hinted: true})
			res, _ := h.do(t, "r", 0, 0)
			f := res.Failure
			if f == nil || f.Class != classify.Unavailable {
				t.Fatalf("failure %+v, want unavailable", f)
			}
			if f.NoRetry {
				t.Errorf("NoRetry true: the client is told not to retry though b is back within 5 s (skew %v)", c.skew)
			}
		})
	}
}
