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

func TestRollingDeployNewModelIgnoresOldModelsVerdict(t *testing.T) {
	gone := modelAGone
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"model-a"`) {
				return upstreamtest.Step{Status: 404, Body: gone}
			}
			return ok("model-a2", "fixed")
		},
		"q": script(ok("model-b", "b"), ok("model-b", "b"), ok("model-b", "b")),
	})
	state := "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\n"
	fixed := strings.Replace(twoTargets, "model: model-a,", "model: model-a2,", 1)
	old, next := start(t, state+twoTargets, fs), start(t, state+fixed, fs)

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
