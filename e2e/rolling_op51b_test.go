package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 51b. Two replicas over one Redis during a rolling reload:
// replica "old" still names the retired model, replica "next" names its
// successor (docs/scale.md, "Rolling deploys": "until the old replicas are
// gone the two sides may overwrite each other, each acting on its own
// verdicts only"). Observed with the real binary: every success of the new
// replica rewrites the shared record as its own, and the old replica reads
// that as "healthy", forgets its own 24 h unavailable verdict, sends the
// retired model again, and its client gets the 404 (unavailable does not
// move to the next target by default). Its console and /v1/health flip
// between cooling and healthy with each request of the other replica.
func TestRollingReloadNewReplicaSuccessWipesOldReplicasVerdict_op51b(t *testing.T) {
	gone := modelAGone
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"model-a"`) {
				return upstreamtest.Step{Status: 404, Body: gone}
			}
			return ok("model-a2", "fixed")
		},
		"q": func(_ int, _ upstreamtest.Request) upstreamtest.Step { return ok("model-b", "b") },
	})
	state := "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\n"
	fixed := strings.Replace(twoTargets, "model: model-a,", "model: model-a2,", 1)
	old, next := start(t, state+twoTargets, fs), start(t, state+fixed, fs)

	old.post(t, "r", "")
	old.recs.wait(t, 1)
	waitState(t, old, "a", "p", "cooling")

	next.post(t, "r", "").wantStatus(t, 200) // the new replica's model-a2 answers
	next.recs.wait(t, 1)

	if e, _ := old.health(t).Endpoint("a", "p"); e.State != "cooling" {
		t.Errorf("after the new replica's success the old replica shows its retired model-a as %s (failures %d, last class %q): its own 24h unavailable verdict is gone", e.State, e.Failures, e.LastClass)
	}
	calls := fs["p"].Calls()
	rep := old.post(t, "r", "")
	d := old.recs.wait(t, 2)
	if fs["p"].Calls() != calls {
		t.Errorf("the old replica sent the retired model-a again (client got %d): steps %v", rep.Status, steps(d))
	}
}
