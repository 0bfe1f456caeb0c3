package process

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// twoReplicas starts replicas "A" and "B" serving the same configuration body.
func twoReplicas(t *testing.T, body string, args ...string) (a, b *gateway) {
	t.Helper()
	return startGateway(t, "A", body, args...), startGateway(t, "B", body, args...)
}

// testGoneModelSkippedByOtherReplica: replica A finds a free model gone
// (OpenRouter's 404 "No endpoints found"); replica B, sharing Redis, goes
// straight to the healthy target on its first request and shows the
// endpoint cooling as unavailable. state is the state section's value.
func testGoneModelSkippedByOtherReplica(t *testing.T, state string) {
	f := newGoneFleet(t)
	body := "state: " + state + "\nlog: {level: debug}\n" + f.yaml(`
routes:
  - {name: cheap, strategy: ordered, targets: [grok, gpt], fallback_on: [unavailable, server_error, timeout]}
`)
	a, b := twoReplicas(t, body)

	r := a.postOK("cheap")
	wantAttempts(t, a.decision(r.Header.Get("X-Detour-Decision")),
		"grok/openrouter unavailable next_target", "gpt/openai ok done")

	e := b.endpoint("grok", "openrouter")
	if e.State != "cooling" || e.LastClass != "unavailable" || e.CooldownUntil == nil {
		t.Fatalf("B's /v1/health for grok/openrouter: %+v, want cooling, last_class unavailable", e)
	}
	if e := b.endpoint("gpt", "openai"); e.LatencyMS == nil || e.State != "healthy" {
		t.Fatalf("B's /v1/health for gpt/openai: %+v, want healthy with A's latency sample", e)
	}
	r = b.postOK("cheap")
	if r.Header.Get("X-Detour-Target") != "gpt" || r.Header.Get("X-Detour-Attempts") != "1" {
		t.Errorf("B's headers: target %q, attempts %q", r.Header.Get("X-Detour-Target"), r.Header.Get("X-Detour-Attempts"))
	}
	wantAttempts(t, b.decision(r.Header.Get("X-Detour-Decision")), "gpt/openai ok done")
	if n := f.gone.Calls(); n != 1 {
		t.Errorf("the gone model was called %d times across both replicas, want 1 (A's)", n)
	}
}

// testOneAlertForTwoReplicas: both replicas hit one capped Anthropic
// account (credit balance too low, as a 400); the webhook gets one alert.
func testOneAlertForTwoReplicas(t *testing.T, state string) {
	hook := startWebhook(t)
	capped := fake(t, upstreamtest.Step{Status: 400, Body: creditTooLow})
	backup := fake(t, ok("gpt-4o-mini"))
	body := render(`
state: {state}
alerts: {webhook: "{hook}", min_interval: 1h}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{capped}", api_key: sk-ant-test}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
`, map[string]string{"state": state, "hook": hook.URL, "capped": capped.URL, "backup": backup.URL})
	a, b := twoReplicas(t, body)

	// Both replicas reach the capped account: A through the route, B by
	// naming the target (a cooling endpoint is still tried when it is the
	// only one), so each has a quota verdict of its own.
	r := a.postOK("deep")
	wantAttempts(t, a.decision(r.Header.Get("X-Detour-Decision")), "claude/anthropic quota next_target", "gpt/openai ok done")
	r = b.post("claude")
	if r.Status != 400 || !strings.Contains(r.Body, "credit balance is too low") {
		t.Fatalf("B naming the capped target: want the real 400, got %d: %s", r.Status, r.Body)
	}
	wantAttempts(t, b.decision(r.Header.Get("X-Detour-Decision")), "claude/anthropic quota stop")
	if n := capped.Calls(); n != 2 {
		t.Fatalf("capped account called %d times, want 2 (once per replica)", n)
	}
	for _, g := range []*gateway{a, b} {
		if ac := g.account("anthropic"); ac.State != "cooling" || ac.LastClass != "quota" {
			t.Errorf("gateway %s: account anthropic %+v, want cooling, last_class quota", g.name, ac)
		}
	}
	// Each replica has decided about its verdict: sent or suppressed.
	decided := func(g *gateway) float64 {
		return g.metric("detour_alerts_total", `provider="anthropic"`, `class="quota"`)
	}
	poll(t, 30*time.Second, "both replicas to decide their quota alert", func() bool {
		return decided(a) == 1 && decided(b) == 1
	})
	poll(t, 30*time.Second, "the alert to reach the webhook", func() bool { return len(hook.alerts()) > 0 })
	sent := a.metric("detour_alerts_total", `provider="anthropic"`, `result="sent"`) +
		b.metric("detour_alerts_total", `provider="anthropic"`, `result="sent"`)
	got := hook.alerts()
	if len(got) != 1 || sent != 1 {
		t.Fatalf("webhook got %d alerts (replicas counted %v sent), want exactly 1: %v", len(got), sent, got)
	}
	if got[0]["provider"] != "anthropic" || got[0]["class"] != "quota" {
		t.Errorf("alert: %v", got[0])
	}
}

// testSingleProbe: after a cooldown learned by A, exactly one request
// across both replicas probes the recovering endpoint; the others go to the
// next target meanwhile, and the probe's success is seen by both.
func testSingleProbe(t *testing.T, state string) {
	release := make(chan struct{})
	var once sync.Once
	flaky := upstreamtest.New(func(n int, _ upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return upstreamtest.Step{Status: 404, Body: noEndpoints}
		}
		if n == 2 {
			<-release // the probe is held until the test lets it answer
		}
		return ok("x-ai/grok-4-fast:free") // a second probe would answer at once, and be counted
	})
	t.Cleanup(flaky.Close)
	t.Cleanup(func() { once.Do(func() { close(release) }) }) // before flaky.Close, which waits for handlers
	backup := fake(t, ok("gpt-4o-mini"))
	body := render(`
state: {state}
health: {unavailable_cooldown: 1s}
providers:
  - {name: openrouter, dialect: openai, base_url: "{flaky}", api_key: sk-or-test}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: grok, model: "x-ai/grok-4-fast:free", providers: [openrouter]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: cheap, strategy: ordered, targets: [grok, gpt], fallback_on: [unavailable]}
`, map[string]string{"state": state, "flaky": flaky.URL, "backup": backup.URL})
	a, b := twoReplicas(t, body)

	a.postOK("cheap") // grok gone: cooled for 1s, in Redis
	poll(t, 30*time.Second, "B to see grok/openrouter probing after its cooldown", func() bool {
		return b.endpoint("grok", "openrouter").State == "probing"
	})
	// A reads the shared clock by its own measurement, which may trail B's
	// by the round trip it was taken in (milliseconds; more on a loaded
	// machine): its one request below is the probe only once A sees the
	// cooldown over too: a request A sends while it still reads cooling goes
	// to gpt (a loaded CI run's probe never reached the endpoint).
	poll(t, 30*time.Second, "A to see grok/openrouter probing too", func() bool {
		return a.endpoint("grok", "openrouter").State == "probing"
	})
	probe := make(chan reply, 1)
	go func() {
		resp, err := client.Post(a.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"cheap","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			probe <- reply{Body: err.Error()}
			return
		}
		resp.Body.Close()
		probe <- reply{Status: resp.StatusCode, Header: resp.Header}
	}()
	poll(t, 30*time.Second, "A's probe to reach the recovering endpoint", func() bool { return flaky.Calls() == 2 })

	// While A's probe is out, neither replica sends a second one.
	for _, g := range []*gateway{b, a, b, a} {
		r := g.postOK("cheap")
		if tgt := r.Header.Get("X-Detour-Target"); tgt != "gpt" {
			d := g.decision(r.Header.Get("X-Detour-Decision"))
			t.Fatalf("gateway %s answered through %q while the probe was out, want gpt; attempts %q", g.name, tgt, attempts(d))
		}
	}
	if n := flaky.Calls(); n != 2 {
		t.Fatalf("recovering endpoint called %d times, want 2 (the failure and one probe)", n)
	}
	once.Do(func() { close(release) })
	r := <-probe
	if r.Status != 200 || r.Header.Get("X-Detour-Target") != "grok" {
		t.Fatalf("probe request: %d through %q (%s)", r.Status, r.Header.Get("X-Detour-Target"), r.Body)
	}
	d := a.decision(r.Header.Get("X-Detour-Decision"))
	if len(d.Attempts) != 1 || !d.Attempts[0].Probe {
		t.Fatalf("probe record: %+v", d.Attempts)
	}
	if e := b.endpoint("grok", "openrouter"); e.State != "healthy" {
		t.Fatalf("B after A's successful probe: %+v, want healthy", e)
	}
	if r := b.postOK("cheap"); r.Header.Get("X-Detour-Target") != "grok" {
		t.Fatalf("B after recovery answered through %q, want grok", r.Header.Get("X-Detour-Target"))
	}
}

// TestSharedRedisOutage: Redis is killed under two replicas; both keep
// serving on local state (logging the outage once); once redis-server is back
// on the same port, sharing resumes: a cooldown A learns is seen by B.
func TestSharedRedisOutage(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	primary := fake(t, ok("gpt-4o"))
	backup := fake(t, ok("gpt-4o-mini"))
	body := render(`
state: {store: redis, url: "{redis}", {timeout}}
log: {format: json}
providers:
  - {name: main, dialect: openai, base_url: "{primary}", api_key: sk-test}
  - {name: spare, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: big, model: gpt-4o, providers: [main]}
  - {name: small, model: gpt-4o-mini, providers: [spare]}
routes:
  - {name: r, strategy: ordered, targets: [big, small], fallback_on: [unavailable, server_error, timeout]}
`, map[string]string{"redis": rs.URL(), "timeout": stateTimeout, "primary": primary.URL, "backup": backup.URL})
	a, b := twoReplicas(t, body)
	a.postOK("r")
	b.postOK("r")

	rs.Kill()
	for range 3 {
		for _, g := range []*gateway{a, b} {
			if r := g.postOK("r"); r.Header.Get("X-Detour-Target") != "big" {
				t.Fatalf("gateway %s during the outage: answered through %q", g.name, r.Header.Get("X-Detour-Target"))
			}
			g.health()
		}
	}
	// A failure while Redis is down is handled on local state.
	primary.SetScript(upstreamtest.Steps(upstreamtest.Step{Status: 503, Body: `{"error":{"message":"overloaded"}}`}))
	for _, g := range []*gateway{a, b} {
		if r := g.postOK("r"); r.Header.Get("X-Detour-Target") != "small" {
			t.Fatalf("gateway %s during the outage, primary failing: answered through %q", g.name, r.Header.Get("X-Detour-Target"))
		}
	}
	primary.SetScript(upstreamtest.Steps(ok("gpt-4o")))
	for _, g := range []*gateway{a, b} {
		outage := g.logLines("redis unreachable")
		if len(outage) != 1 {
			t.Fatalf("gateway %s logged the outage %d times, want once:\n%s", g.name, len(outage), g.stderr.String())
		}
		if err, _ := outage[0]["err"].(string); !strings.Contains(err, "connection refused") {
			t.Errorf("gateway %s: the outage line does not name the cause (connection refused): %v", g.name, outage[0])
		}
	}

	rs.Start(t) // same port, empty
	poll(t, 30*time.Second, "A to resume sharing", func() bool {
		a.health()
		return strings.Contains(a.stderr.String(), "resumed sharing")
	})
	primary.SetScript(upstreamtest.Steps(upstreamtest.Step{Status: 404, Body: noEndpoints}))
	r := a.postOK("r")
	wantAttempts(t, a.decision(r.Header.Get("X-Detour-Decision")), "big/main unavailable next_target", "small/spare ok done")
	poll(t, 30*time.Second, "B to see the cooldown A learned after Redis came back", func() bool {
		e := b.endpoint("big", "main")
		return e.State == "cooling" && e.LastClass == "unavailable"
	})
	calls := primary.Calls()
	r = b.postOK("r")
	wantAttempts(t, b.decision(r.Header.Get("X-Detour-Decision")), "small/spare ok done")
	if primary.Calls() != calls {
		t.Errorf("B called the endpoint A found gone")
	}
	for _, g := range []*gateway{a, b} { // every stderr line is a JSON log record
		if n, m := len(g.logLines("redis unreachable")), len(g.logLines("resumed sharing")); n != 1 || m != 1 {
			t.Errorf("gateway %s: outage logged %d times, recovery %d times; want once each:\n%s", g.name, n, m, g.stderr.String())
		}
	}
}

// TestSharedRedisDownAtStart: a replica started while Redis is down serves
// on local state, logs it once, and starts sharing when Redis comes up.
func TestSharedRedisDownAtStart(t *testing.T) {
	t.Parallel()
	rs := redistest.New(t) // not started
	up := fake(t, ok("gpt-4o"))
	gone := fake(t, upstreamtest.Step{Status: 404, Body: noEndpoints})
	body := render(`
state: {store: redis, url: "{redis}", {timeout}}
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test}
  - {name: openrouter, dialect: openai, base_url: "{gone}", api_key: sk-or-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
  - {name: grok, model: "x-ai/grok-4-fast:free", providers: [openrouter]}
routes:
  - {name: r, strategy: fastest, targets: [grok, gpt]}
`, map[string]string{"redis": rs.URL(), "timeout": stateTimeout, "up": up.URL, "gone": gone.URL})
	a := startGateway(t, "A", body)
	for range 3 {
		a.postOK("gpt")
	}
	if n := strings.Count(a.stderr.String(), "redis unreachable"); n != 1 {
		t.Fatalf("outage at start logged %d times, want once:\n%s", n, a.stderr.String())
	}
	rs.Start(t)
	poll(t, 30*time.Second, "A to start sharing once Redis is up", func() bool {
		a.health()
		return strings.Contains(a.stderr.String(), "resumed sharing")
	})
	a.postOK("r") // grok found gone, now in Redis
	b := startGateway(t, "B", body)
	if e := b.endpoint("grok", "openrouter"); e.State != "cooling" || e.LastClass != "unavailable" {
		t.Fatalf("B (started after Redis came up) sees grok/openrouter %+v, want cooling as A learned", e)
	}
}

// testRecoveryPostedOnce: an account paged for its spent credit is said
// back once its cooldown is over and a probe succeeds: one post
// ("event":"recovered") across two replicas, saying since when it was out,
// which /v1/health showed meanwhile (down_since) and shows no more
// (operator review 55: no post said an account was back, and no surface
// said since when it was down).
func testRecoveryPostedOnce(t *testing.T, state string) {
	hook := startWebhook(t)
	// Two spent-credit answers (one per replica), then it serves.
	capped := fake(t, upstreamtest.Step{Status: 400, Body: creditTooLow}, upstreamtest.Step{Status: 400, Body: creditTooLow},
		upstreamtest.Step{Body: op54Claude})
	backup := fake(t, ok("gpt-4o-mini"))
	body := render(`
state: {state}
alerts: {webhook: "{hook}", min_interval: 1h}
health: {account_cooldown: 2s}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{capped}", api_key: sk-ant-test}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
`, map[string]string{"state": state, "hook": hook.URL, "capped": capped.URL, "backup": backup.URL})
	a, b := twoReplicas(t, body)
	start := time.Now().Add(-time.Second)
	a.postOK("deep")
	if r := b.post("claude"); r.Status != 400 {
		t.Fatalf("B naming the capped target: %d %s", r.Status, r.Body)
	}
	ac := b.account("anthropic")
	// down_since is on the replicas' shared clock (Redis's TIME less half
	// a round trip), which may run some milliseconds ahead of this
	// process's: a CI run read it 6 ms past the test's now.
	if ac.State != "cooling" || ac.DownSince == nil || ac.DownSince.Before(start) || ac.DownSince.After(time.Now().Add(time.Second)) {
		t.Fatalf("account while cooling: %+v, want cooling with down_since since the first verdict", ac)
	}
	// The start itself as A, which wrote it, reads it: B bounds a start its
	// own estimate of the shared clock has not reached yet to its now
	// (docs/behaviour.md, "One clock, bounded by the reader"), a few
	// milliseconds off when the two estimates differ.
	ac = a.account("anthropic")
	if ac.DownSince == nil {
		t.Fatalf("account on A, which paged it: %+v, want a down_since", ac)
	}
	down := *ac.DownSince
	if ep, _ := a.health().Endpoint("claude", "anthropic"); ep.DownSince == nil || !ep.DownSince.Equal(down) {
		t.Fatalf("endpoint held back by its account: down_since %v, want the account's %v", ep.DownSince, down)
	}
	recoveries := func() (out []map[string]any) {
		for _, m := range hook.alerts() {
			if m["event"] == "recovered" {
				out = append(out, m)
			}
		}
		return out
	}
	poll(t, 30*time.Second, "the account to be probed back on one of the replicas", func() bool {
		for _, g := range []*gateway{a, b} {
			g.postOK("deep")
		}
		return a.account("anthropic").State == "healthy"
	})
	poll(t, 30*time.Second, "the recovery post", func() bool { return len(recoveries()) > 0 })
	for _, g := range []*gateway{a, b} { // more traffic on both: nothing more to announce
		g.postOK("deep")
		if ac := g.account("anthropic"); ac.State != "healthy" || ac.DownSince != nil {
			t.Errorf("gateway %s after the recovery: %+v, want healthy and no down_since", g.name, ac)
		}
	}
	time.Sleep(500 * time.Millisecond) // a second post, if one were coming, is sent at once
	got := recoveries()
	if len(got) != 1 {
		t.Fatalf("recovery posts: %v, want exactly one across the replicas", got)
	}
	if got[0]["provider"] != "anthropic" || got[0]["class"] != "quota" || got[0]["down_since"] != down.UTC().Format(time.RFC3339) ||
		!strings.Contains(fmt.Sprint(got[0]["text"]), "anthropic is back (quota)") {
		t.Errorf("recovery post: %v, want anthropic back from quota, out since %v", got[0], down)
	}
}
