package dispatch

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
)

// answer is what a fake upstream call comes to: a success, or a failure of
// class with the given facts.
type answer struct {
	ok         bool
	class      classify.Class
	billable   bool
	retryAfter time.Duration
}

var okAnswer = answer{ok: true}

// fail is a failure of class c; it is billable as a real upstream's would be
// when the request ran (a timeout) or its answer was read (5xx bodies are not).
func fail(c classify.Class) answer { return answer{class: c, billable: c == classify.Timeout} }

// fake is a caller with no HTTP: script decides each call's answer from the
// endpoint and the request's call count (1-based), and it counts calls.
type fake struct {
	mu     sync.Mutex
	script func(k health.Key, n int) answer
	n      int
	calls  []health.Key
}

func (f *fake) call(_ context.Context, _ *walk, e *endpointRT) *outcome {
	f.mu.Lock()
	f.n++
	a := f.script(e.key, f.n)
	f.calls = append(f.calls, e.key)
	f.mu.Unlock()
	o := &outcome{billable: a.billable}
	if a.ok {
		o.ok, o.status, o.body = true, 200, []byte(`{"object":"chat.completion"}`)
		return o
	}
	o.status = 502
	o.failWith(classify.Verdict{Class: a.class, Evidence: "fake", RetryAfter: a.retryAfter}, "fake "+a.class.String())
	return o
}

// firstFails fails the request's first call with a and answers every other.
func firstFails(a answer) func(health.Key, int) answer {
	return func(_ health.Key, n int) answer {
		if n == 1 {
			return a
		}
		return okAnswer
	}
}

// downAt fails every call at provider p with class c and answers the others.
func downAt(p string, c classify.Class) func(health.Key, int) answer {
	return func(k health.Key, _ int) answer {
		if k.Provider == p {
			return fail(c)
		}
		return okAnswer
	}
}

// harness is a Dispatcher for a configuration, with a fake caller, a memory
// health tracker on a clock the test moves, and its decision records.
type harness struct {
	d    *Dispatcher
	f    *fake
	h    *health.Tracker
	now  time.Time
	mu   sync.Mutex
	recs []*decision.Decision
}

func (h *harness) Write(d *decision.Decision) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.recs = append(h.recs, d)
}

// providers and targets every harness configuration shares: target a through
// p1 then p2, b through q, c through p1 (p1's account again), z through y
// (the largest context window; c declares none).
const base = `
retry: {max_wait: 1s}
health: {failure_threshold: 3, cooldown: 10s, max_cooldown: 1m, unavailable_cooldown: 1h, account_cooldown: 30m}
providers:
  - {name: p1, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
  - {name: p2, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
  - {name: q, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
  - {name: y, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: k}
targets:
  - {name: a, model: ma, providers: [p1, p2]}
  - {name: one, model: m1, providers: [p1], context_window: 8000}
  - {name: b, model: mb, providers: [q], context_window: 128000}
  - {name: c, model: mc, providers: [p1]}
  - {name: z, model: mz, providers: [y], context_window: 1000000}
routes:
`

func newHarness(t testing.TB, routes string, script func(health.Key, int) answer) *harness {
	t.Helper()
	cfg, err := config.Parse("test.yaml", []byte(base+routes), nil)
	if err != nil {
		t.Fatal(err)
	}
	// health's clock starts at the wall clock's: the walk reads cooldowns
	// against time.Now() when it advises the client (retryafter.go).
	h := &harness{f: &fake{script: script}, now: time.Now()}
	var keys []health.Key
	for _, tg := range cfg.Targets {
		for _, p := range tg.Providers {
			keys = append(keys, health.Key{Target: tg.Name, Provider: p})
		}
	}
	h.h = health.New(health.NewMemory(), health.Settings{FailureThreshold: cfg.Health.FailureThreshold,
		Cooldown: cfg.Health.Cooldown, MaxCooldown: cfg.Health.MaxCooldown}, keys, func() time.Time { return h.now })
	h.d, err = New(Options{Config: cfg, Health: h.h, Decisions: h, Backoff: func() time.Duration { return 0 },
		Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	h.d.call = h.f.call
	return h
}

// do serves one request for model with the request's own limits (0: the
// route's) and returns its result and decision record.
func (h *harness) do(t *testing.T, model string, maxAttempts, maxBillable int) (*Result, *decision.Decision) {
	t.Helper()
	h.f.mu.Lock()
	h.f.n = 0
	h.f.mu.Unlock()
	res := h.d.Do(context.Background(), testCall(model, maxAttempts, maxBillable))
	return res, res.Decision
}

// testCall is a non-stream request for model.
func testCall(model string, maxAttempts, maxBillable int) *Call {
	body := `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]}`
	return &Call{Model: model, Body: []byte(body), MaxAttempts: maxAttempts, MaxBillable: maxBillable, ID: "test"}
}

// steps is the record's attempts as "target/provider class action".
func steps(d *decision.Decision) []string {
	var out []string
	for _, a := range d.Attempts {
		c := a.Class
		if c == "" {
			c = "ok"
		}
		s := a.Target + "/" + a.Provider + " " + c + " " + string(a.Action)
		if a.Probe {
			s += " probe"
		}
		out = append(out, s)
	}
	return out
}

func wantSteps(t *testing.T, d *decision.Decision, want ...string) {
	t.Helper()
	if got := steps(d); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("attempts\n  %s\nwant\n  %s", strings.Join(got, "\n  "), strings.Join(want, "\n  "))
	}
}
