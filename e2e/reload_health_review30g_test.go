package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 30g (reloads and shared state).

// rotatedKey is provider p's new key; onlyRotatedKey, p's upstream, rejects
// any other (401 invalid_api_key) and answers model-a with it.
const rotatedKey = "sk-rotated-0123456789abcdef"

func onlyRotatedKey(_ int, r upstreamtest.Request) upstreamtest.Step {
	if r.Header.Get("Authorization") != "Bearer "+rotatedKey {
		return upstreamtest.Step{Status: 401, Body: `{"error":{"message":"Incorrect API key provided.","type":"invalid_request_error","code":"invalid_api_key"}}`}
	}
	return ok("model-a", "a")
}

// modelAGone is OpenAI's answer for a model that does not exist (model-a).
const modelAGone = `{"error":{"message":"The model ` + "`model-a`" + ` does not exist or you do not have access to it.",` +
	`"type":"invalid_request_error","param":null,"code":"model_not_found"}}`

// A reload that moves a target to another provider (both still configured)
// drops the old endpoint's series (metrics.Retain: "A target and a provider
// both still configured may no longer meet"); docs/security.md: "a reload
// that removes a target, provider or route removes its series from
// /metrics ..., so a dashboard never shows a state nobody serves". An
// attempt still in flight on the old endpoint, whose answer cools it after
// the reload, must not bring back detour_endpoint_state for an endpoint
// nobody serves: /v1/health no longer lists it, and nothing ever updates
// that gauge again, so it reads "cooling" until the next reload.
func TestReloadInFlightCoolingDoesNotResurrectRemovedEndpointState(t *testing.T) {
	release := make(chan struct{})
	gone := modelAGone
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(n int, _ upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				<-release // held until the reload has happened
				return upstreamtest.Step{Status: 404, Body: gone}
			}
			return ok("model-b", "b")
		},
		"q": script(ok("model-a", "a")),
	})
	g := start(t, twoTargets, fs)

	done := make(chan reply, 1)
	go func() { done <- g.post(t, "a", "") }()
	waitCalls(t, fs["p"], 1)

	moved := strings.NewReplacer("{p}", fs["p"].URL, "{q}", fs["q"].URL).Replace(`
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [q]}
  - {name: b, model: model-b, providers: [p]}
routes:
  - {name: r, targets: [a, b]}
`)
	if err := g.app.Reload(gatewaytest.Config(t, moved)); err != nil {
		t.Fatal(err)
	}
	close(release)
	<-done
	d := g.recs.wait(t, 1)
	t.Logf("in-flight request: outcome %s, steps %v, transitions %+v", d.Outcome, steps(d), d.Transitions)

	for _, e := range g.health(t).Endpoints {
		if e.Target == "a" && e.Provider == "p" {
			t.Fatalf("/v1/health still lists a/p after the reload: %+v", e)
		}
	}
	m := string(g.raw(t, http.MethodGet, "/metrics", "").Body)
	for _, line := range strings.Split(m, "\n") {
		if strings.HasPrefix(line, "detour_endpoint_state{") && strings.Contains(line, `provider="p"`) &&
			strings.Contains(line, `target="a"`) {
			t.Errorf("after the reload /metrics shows the state of endpoint a/p, which nobody serves: %s", line)
		}
	}
}

// The usual fix for a model found gone (unavailable, which cools the
// endpoint for unavailable_cooldown, 24h) is to correct the target's model
// and SIGHUP. The endpoint keeps its name (target/provider), so it keeps
// the gone model's 24h cooldown: the corrected model is never tried, the
// route goes on to its next target for a day, and /v1/health shows the new
// model as cooling for "unavailable" though nothing has ever called it.
// (Judgement call: docs/scale.md says a reload keeps health state; it does
// not say a cooldown outlives the model that earned it.)
func TestReloadThatChangesAGoneModelTriesTheNewModel(t *testing.T) {
	gone := modelAGone
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"model-a"`) {
				return upstreamtest.Step{Status: 404, Body: gone}
			}
			return ok("model-a2", "fixed")
		},
		"q": script(ok("model-b", "b")),
	})
	g := start(t, twoTargets, fs)
	g.post(t, "r", "") // an ordered route stops at a gone model: 404
	d := g.recs.wait(t, 1)
	t.Logf("before the reload: steps %v", steps(d))
	waitState(t, g, "a", "p", "cooling")

	fixed := strings.NewReplacer("{p}", fs["p"].URL, "{q}", fs["q"].URL, "model: model-a,", "model: model-a2,").Replace(twoTargets)
	if err := g.app.Reload(gatewaytest.Config(t, fixed)); err != nil {
		t.Fatal(err)
	}
	calls := fs["p"].Calls()
	g.post(t, "r", "").wantStatus(t, 200)
	d = g.recs.wait(t, 2)
	t.Logf("after the reload: steps %v, skipped %v", steps(d), skipped(d))
	if fs["p"].Calls() == calls {
		t.Errorf("the corrected model model-a2 was never tried: a/p still cools for model-a's 'unavailable' (steps %v, skipped %v)", steps(d), skipped(d))
	}
}

// The same for a key: a rejected key (auth) cools the provider's account
// for account_cooldown; the operator rotates the key and reloads, and the
// new key is tried at once, not after the old one's hour. A reload that
// changes nothing of the provider keeps its cooldown.
func TestReloadThatRotatesAKeyTriesTheNewKey(t *testing.T) {
	const newKey = rotatedKey
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": onlyRotatedKey,
		"q": script(ok("model-b", "b"), ok("model-b", "b"), ok("model-b", "b")),
	})
	g := start(t, twoTargets, fs)
	g.post(t, "r", "")
	g.recs.wait(t, 1)
	cfgWith := func(key string) string {
		return strings.NewReplacer("{p}", fs["p"].URL, "{q}", fs["q"].URL).Replace(
			strings.Replace(twoTargets, `base_url: "{p}", api_key: `+secret, `base_url: "{p}", api_key: `+key, 1))
	}
	// Unchanged: the account still cools, p is not asked.
	if err := g.app.Reload(gatewaytest.Config(t, cfgWith(secret))); err != nil {
		t.Fatal(err)
	}
	calls := fs["p"].Calls()
	g.post(t, "r", "").wantStatus(t, 200)
	g.recs.wait(t, 2)
	if fs["p"].Calls() != calls {
		t.Errorf("a reload that changed nothing of p asked its cooling account again")
	}
	if err := g.app.Reload(gatewaytest.Config(t, cfgWith(newKey))); err != nil {
		t.Fatal(err)
	}
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 3)
	if fs["p"].Calls() == calls || len(d.Attempts) == 0 || d.Attempts[len(d.Attempts)-1].Target != "a" {
		t.Errorf("the rotated key was never tried: steps %v, skipped %v", steps(d), skipped(d))
	}
}

// Review 33d. A reload that shortens unavailable_cooldown shortens the
// cooldowns already running (docs/behaviour.md, "Health": no record reads
// a cooldown longer than the configuration can start): a model found gone
// under 24h, with the operator's new hour, is tried again within the hour.
func TestReloadThatShortensACooldownShortensTheRunningOne(t *testing.T) {
	gone := modelAGone
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Status: 404, Body: gone}),
		"q": script(ok("model-b", "b")),
	})
	g := start(t, twoTargets, fs)
	g.post(t, "r", "")
	g.recs.wait(t, 1)
	waitState(t, g, "a", "p", "cooling")

	hour := strings.NewReplacer("{p}", fs["p"].URL, "{q}", fs["q"].URL).Replace("health: {unavailable_cooldown: 1h}\n" + twoTargets)
	if err := g.app.Reload(gatewaytest.Config(t, hour)); err != nil {
		t.Fatal(err)
	}
	for _, e := range g.health(t).Endpoints {
		if e.Target == "a" && e.Provider == "p" {
			if e.State != "cooling" || e.CooldownUntil == nil {
				t.Fatalf("a/p after the reload: %+v", e)
			}
			if left := time.Until(*e.CooldownUntil); left > time.Hour {
				t.Errorf("a/p cools %v more after a reload to unavailable_cooldown: 1h", left.Round(time.Minute))
			}
		}
	}
}
