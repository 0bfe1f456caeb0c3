package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An endpoint whose streams break after they began while its whole answers
// work cools, under mixed traffic too (docs/behaviour.md, "Health"):
// before round 50 each whole answer's success reset the count, every
// stream failed, and /v1/health said healthy (operator review 50b).
func TestStreamsOnlyOutageCoolsUnderMixedTraffic(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if r.Streamed() {
				return cutStream("openai")
			}
			return ok("model-a", "whole")
		},
		"q": func(int, upstreamtest.Request) upstreamtest.Step { return ok("model-b", "b") },
	})
	g := start(t, oneEach, fs) // failure_threshold 3
	for range 3 {
		g.post(t, "r", "").wantStatus(t, 200)               // a whole answer: served by a/p1
		g.post(t, "r", `,"stream":true`).wantStatus(t, 200) // a stream: cut after its first content
	}
	for _, e := range g.health(t).Endpoints {
		if e.Target == "a" && e.State != "cooling" {
			t.Errorf("a/p1 is %s (failures %d) after three cut streams between whole answers", e.State, e.Failures)
		}
	}
}
