package e2e

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 30i. docs/scale.md, Reload: an endpoint whose target now names
// another model "starts healthy ... correcting a retired model and
// reloading tries the new one at once". Review 30h's fix retires the
// changed endpoints on the tracker of the configuration the reload
// replaced (Tracker.Retire on a.Server.Current().Health), so an old
// attempt in flight cannot cool the new model. But only the immediately
// previous tracker is retired: a request that started two configurations
// ago (any reload in between, even a SIGHUP that changed nothing, which
// configuration management sends routinely) still reports on its own,
// un-retired tracker into the same store, and the old model's 404 cools
// the corrected model for unavailable_cooldown (24h) without it ever
// being asked.
func TestReloadedModelIsNotCooledByAnAttemptTwoReloadsOld(t *testing.T) {
	release := make(chan struct{})
	gone := `{"error":{"message":"The model ` + "`model-a`" + ` does not exist or you do not have access to it.",` +
		`"type":"invalid_request_error","param":null,"code":"model_not_found"}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"model-a"`) {
				<-release // the old model's answer comes after both reloads
				return upstreamtest.Step{Status: 404, Body: gone}
			}
			return ok("model-a2", "fixed")
		},
		"q": script(ok("model-b", "b"), ok("model-b", "b"), ok("model-b", "b")),
	})
	g := start(t, twoTargets, fs)
	done := make(chan reply, 1)
	go func() { done <- g.post(t, "r", "") }()
	waitCalls(t, fs["p"], 1)

	urls := strings.NewReplacer("{p}", fs["p"].URL, "{q}", fs["q"].URL)
	// A reload that changes nothing (a routine SIGHUP) ...
	if err := g.app.Reload(gatewaytest.Config(t, urls.Replace(twoTargets))); err != nil {
		t.Fatal(err)
	}
	// ... then the one that corrects the model.
	fixed := strings.Replace(urls.Replace(twoTargets), "model: model-a,", "model: model-a2,", 1)
	if err := g.app.Reload(gatewaytest.Config(t, fixed)); err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done
	d := g.recs.wait(t, 1)
	t.Logf("in flight across both reloads: steps %v, transitions %+v", steps(d), d.Transitions)

	calls := fs["p"].Calls()
	g.post(t, "r", "")
	d = g.recs.wait(t, 2)
	if fs["p"].Calls() == calls {
		t.Errorf("the corrected model model-a2 was never tried: the old model-a's 404, met by a request that started two configurations ago, cooled a/p after the reload (steps %v, skipped %v)",
			steps(d), skipped(d))
	}
}
