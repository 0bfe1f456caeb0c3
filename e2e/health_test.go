package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// docs/behaviour.md#health: cooling endpoints go last, not away; one probe after the
// cooldown; a client that leaves cools nothing. The tests wait for a 2s
// cooldown to pass by polling /v1/health for "probing"; no assertion is
// about elapsed time. The cooldown is long enough that the request meant to
// find the endpoint still cooling, sent right after the failure, does so on
// a loaded machine.

// probeCfg: target a through p1 then p2; a 2s cooldown after one failure.
const probeCfg = `
health: {failure_threshold: 1, cooldown: 2s, max_cooldown: 10s}
providers:
  - {name: p1, dialect: openai, base_url: "{p1}", api_key: ` + secret + `}
  - {name: p2, dialect: openai, base_url: "{p2}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p1, p2]}
routes:
  - {name: r, targets: [a]}
`

func TestHealthNeverDeniesService(t *testing.T) {
	limited := corpus(t, "mistral-requests-rate-limit-exceeded", "Retry-After", "30")
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(corpus(t, "openai-server-error-500")),
		"q": script(limited, limited, ok("model-b", "recovered")),
	})
	g := start(t, "health: {failure_threshold: 1, cooldown: 2m}"+twoTargets, fs)
	g.post(t, "r", "").wantStatus(t, 429)
	// failure_threshold 1: a's first server error cools it, so it is not
	// tried there again (docs/behaviour.md, "Rules").
	wantSteps(t, g.recs.wait(t, 1), "a/p server_error next_target", "b/q rate_limited stop")
	// Both cool now: a for 2m, b for 30s. Both are still tried, b first.
	g.post(t, "r", "").wantStatus(t, 500)
	wantSteps(t, g.recs.wait(t, 2), "b/q rate_limited next_target", "a/p server_error retry", "a/p server_error stop")
	r := g.post(t, "r", "")
	r.wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 3), "b/q ok done")
}

func TestProbeAfterCooldown(t *testing.T) {
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	down := corpus(t, "openai-server-error-500")
	t.Run("success closes it", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(down, ok("model-a", "back")), "p2": script(ok("model-a", "p2"))})
		g := start(t, probeCfg, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 1), "a/p1 server_error next_endpoint", "a/p2 ok done") // cooled by it: no retry
		g.post(t, "r", "").wantStatus(t, 200)
		wantSteps(t, g.recs.wait(t, 2), "a/p2 ok done") // still cooling: last, and p2 answers
		waitState(t, g, "a", "p1", "probing")
		g.post(t, "r", "").wantStatus(t, 200)
		d := g.recs.wait(t, 3)
		wantSteps(t, d, "a/p1 ok done")
		if !d.Attempts[0].Probe {
			t.Errorf("the first attempt after the cooldown is not a probe: %+v", d.Attempts[0])
		}
		if !hasTransition(d, "a/p1", "probing", "healthy") {
			t.Errorf("transitions %+v", d.Transitions)
		}
		g.post(t, "r", "").wantStatus(t, 200)
		if d := g.recs.wait(t, 4); d.Attempts[0].Probe || len(d.Transitions) != 0 {
			t.Errorf("closed endpoint: %+v", d)
		}
	})
	t.Run("failure cools it again, and the probe is not retried", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"p1": script(down), "p2": script(ok("model-a", "p2"))})
		g := start(t, probeCfg, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		waitState(t, g, "a", "p1", "probing")
		g.post(t, "r", "").wantStatus(t, 200)
		d := g.recs.wait(t, 2)
		wantSteps(t, d, "a/p1 server_error next_endpoint", "a/p2 ok done")
		if !d.Attempts[0].Probe || !hasTransition(d, "a/p1", "probing", "cooling") {
			t.Errorf("probe %+v transitions %+v", d.Attempts[0], d.Transitions)
		}
		if n := fs["p1"].Calls(); n != 2 {
			t.Errorf("p1 called %d times, want 2 (one, then one probe)", n)
		}
	})
	t.Run("one probe at a time", func(t *testing.T) {
		// The probe (p1's second call) is held until the other request has
		// its answer; any later call of p1 would answer at once.
		release := make(chan struct{})
		var once sync.Once
		p1 := func(n int, _ upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return down
			}
			if n == 2 {
				<-release
			}
			return ok("model-a", "back")
		}
		fs := fakes(t, map[string]upstreamtest.Script{"p1": p1, "p2": script(ok("model-a", "p2"))})
		t.Cleanup(func() { once.Do(func() { close(release) }) }) // before the fakes close: they wait for their handlers
		g := start(t, probeCfg, fs)
		g.post(t, "r", "").wantStatus(t, 200)
		waitState(t, g, "a", "p1", "probing")
		probeC := g.postAsync(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`)
		waitCalls(t, fs["p1"], 2) // the probe is in flight
		other := g.post(t, "r", "")
		once.Do(func() { close(release) })
		probe := within(t, probeC, "the probe")
		probe.wantStatus(t, 200)
		other.wantStatus(t, 200)
		wantSteps(t, g.recs.byID(t, other.Header.Get("X-Detour-Decision")), "a/p2 ok done")
		wantSteps(t, g.recs.byID(t, probe.Header.Get("X-Detour-Decision")), "a/p1 ok done")
		if n := fs["p1"].Calls(); n != 2 {
			t.Errorf("p1 called %d times, want one probe", n)
		}
	})
}

// hasTransition reports whether d records name moving from one health state to another.
func hasTransition(d *decision.Decision, name, from, to string) bool {
	for _, tr := range d.Transitions {
		if tr.Name == name && tr.From == from && tr.To == to {
			return true
		}
	}
	return false
}

func TestClientCancellation(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Delay: 30 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}), // until the client leaves
		"q": script(ok("model-b", "b")),
	})
	g := start(t, twoTargets, fs)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	errc := make(chan error, 1)
	go func() {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			resp.Body.Close()
		}
		errc <- err
	}()
	waitCalls(t, fs["p"], 1)
	cancel()
	if err := <-errc; !errors.Is(err, context.Canceled) {
		t.Errorf("client: %v", err)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p - stop")
	if d.Outcome != "canceled" || d.Attempts[0].Evidence != "client canceled" || d.Attempts[0].Counted {
		t.Errorf("record: outcome %q attempt %+v", d.Outcome, d.Attempts[0])
	}
	for start := time.Now(); fs["p"].Gone() != 1; time.Sleep(5 * time.Millisecond) {
		if time.Since(start) > 30*time.Second { // a failure guard
			t.Fatal("the upstream never saw its request canceled")
		}
	}
	if fs["q"].Calls() != 0 {
		t.Error("a canceled request moved on")
	}
	for _, e := range g.health(t).Endpoints {
		if e.State != "healthy" || e.Failures != 0 || e.LastClass != "" {
			t.Errorf("health counted a client's cancellation: %+v", e)
		}
	}
}

func TestHealthEndpoint(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, "openai-model-not-found-404")), "q": script(ok("model-b", "b"))})
	g := start(t, strings.Replace(twoTargets, "{name: r, targets: [a, b]}", "{name: r, targets: [a, b], fallback_on: [unavailable]}", 1), fs)
	raw := g.raw(t, http.MethodGet, "/v1/health", "")
	raw.wantStatus(t, 200)
	for _, key := range []string{`"target"`, `"provider"`, `"model"`, `"state"`, `"failures"`, `"last_class"`, `"cooldown_until"`, `"latency_ms"`, `"accounts"`} {
		if !strings.Contains(string(raw.Body), key) {
			t.Errorf("/v1/health lacks %s: %s", key, raw.Body)
		}
	}
	h := g.health(t)
	if len(h.Endpoints) != 2 || len(h.Accounts) != 2 {
		t.Fatalf("health: %+v", h)
	}
	for _, e := range h.Endpoints {
		if e.State != "healthy" || e.CooldownUntil != nil || e.LatencyMS != nil {
			t.Errorf("fresh endpoint: %+v", e)
		}
	}
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), "a/p unavailable next_target", "b/q ok done")
	for _, e := range g.health(t).Endpoints {
		switch e.Target + "/" + e.Provider {
		case "a/p":
			if e.Model != "model-a" || e.State != "cooling" || e.LastClass != "unavailable" || e.Failures != 1 ||
				e.CooldownUntil == nil || !e.CooldownUntil.After(time.Now().Add(time.Hour)) {
				t.Errorf("a 404 endpoint: %+v", e)
			}
		case "b/q":
			if e.State != "healthy" || e.LatencyMS == nil {
				t.Errorf("answering endpoint: %+v", e)
			}
		}
	}
}
