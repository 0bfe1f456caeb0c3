package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 33d. Replicas over one Redis share health by name
// (target/provider, provider). During a rolling deploy they do not share a
// configuration: the old replicas still ask for the model found gone, or
// send the key found rejected, and keep writing that verdict under the
// name the new replicas use for the corrected model or the rotated key. A
// fresh process (no reload, so nothing is forgotten) then skipped the fix
// for unavailable_cooldown (a day) or account_cooldown. A record carries
// what it is about (docs/scale.md, "Rolling deploys"); a replica reads one
// about something else as empty.

// rollingModel starts two replicas over one Redis: old names the retired
// model-a (its upstream answers 404), next its successor model-a2.
func rollingModel(t *testing.T) (old, next *gateway, fs map[string]*upstreamtest.Server) {
	t.Helper()
	fs = fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"model-a"`) {
				return upstreamtest.Step{Status: 404, Body: modelAGone}
			}
			return ok("model-a2", "fixed")
		},
		"q": func(int, upstreamtest.Request) upstreamtest.Step { return ok("model-b", "b") },
	})
	state := "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\n"
	fixed := strings.Replace(twoTargets, "model: model-a,", "model: model-a2,", 1)
	return start(t, state+twoTargets, fs), start(t, state+fixed, fs), fs
}

func TestRollingDeployNewModelIgnoresOldModelsVerdict(t *testing.T) {
	old, next, fs := rollingModel(t)

	old.post(t, "r", "")
	old.recs.wait(t, 1)
	waitState(t, old, "a", "p", "cooling")
	if e, _ := next.health(t).Endpoint("a", "p"); e.State != "healthy" {
		t.Errorf("the new replica shows its model-a2 as %s (%s): the old replica's model-a verdict", e.State, e.LastClass)
	}
	calls := fs["p"].Calls()
	next.post(t, "r", "").wantStatus(t, 200)
	d := next.recs.wait(t, 1)
	if fs["p"].Calls() == calls {
		t.Errorf("the new replica never tried model-a2: steps %v, skipped %v", steps(d), skipped(d))
	}
}

func TestRollingDeployRotatedKeyIgnoresOldKeysVerdict(t *testing.T) {
	const newKey = rotatedKey
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": onlyRotatedKey,
		"q": script(ok("model-b", "b"), ok("model-b", "b")),
	})
	state := "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\n"
	rotated := strings.Replace(twoTargets, `base_url: "{p}", api_key: `+secret, `base_url: "{p}", api_key: `+newKey, 1)
	old, next := start(t, state+twoTargets, fs), start(t, state+rotated, fs)

	old.post(t, "r", "")
	old.recs.wait(t, 1)
	if h := old.health(t); len(h.Accounts) == 0 || h.Accounts[0].State != "cooling" {
		t.Fatalf("the old key's account does not cool: %+v", h.Accounts)
	}
	for _, a := range next.health(t).Accounts {
		if a.Name == "p" && a.State != "healthy" {
			t.Errorf("the new replica shows account p (the rotated key) %s for %s: the old key's verdict", a.State, a.LastClass)
		}
	}
	calls := fs["p"].Calls()
	next.post(t, "r", "").wantStatus(t, 200)
	d := next.recs.wait(t, 1)
	if fs["p"].Calls() == calls || d.Attempts[len(d.Attempts)-1].Target != "a" {
		t.Errorf("the rotated key was never tried: steps %v, skipped %v", steps(d), skipped(d))
	}
}

// Operator review 51b: the other way round. Every success of the new
// replica rewrote the shared record as its own, and the old replica read
// that as healthy, forgot its own 24 h unavailable verdict, sent the
// retired model again, and its client got the 404 (unavailable does not
// move to the next target by default).
func TestRollingReloadNewReplicaSuccessKeepsOldReplicasVerdict(t *testing.T) {
	old, next, fs := rollingModel(t)
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
