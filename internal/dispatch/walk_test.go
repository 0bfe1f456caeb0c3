package dispatch

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/route"
)

const (
	stopA  = decision.ActionStop
	retryA = decision.ActionRetry
	nextE  = decision.ActionNextEndpoint
	nextT  = decision.ActionNextTarget
	tailA  = decision.ActionTail
)

// byStrategy is what follows a first failed attempt of each class in a
// route of two one-endpoint targets (one: context window 8000, b: 128000),
// per strategy in the order ordered, fastest, pool. A fresh pool's first
// request starts at its second target (b), so context_length finds no
// larger window there.
var byStrategy = map[classify.Class][3]decision.Action{
	classify.Timeout:       {nextT, nextT, nextT},
	classify.RateLimited:   {nextT, nextT, nextT},
	classify.Quota:         {nextT, nextT, nextT},
	classify.ServerError:   {retryA, retryA, retryA},
	classify.Unavailable:   {stopA, nextT, nextT},
	classify.Auth:          {stopA, stopA, stopA},
	classify.Forbidden:     {stopA, stopA, stopA},
	classify.Overflow:      {nextT, nextT, nextT},
	classify.ContextLength: {nextT, nextT, stopA},
	classify.Refusal:       {stopA, stopA, stopA},
	classify.BadRequest:    {stopA, stopA, stopA},
	classify.Unknown:       {nextT, nextT, nextT},
}

// TestWalkClassByStrategyByBudget drives the walk with a fake attempt for
// every class × strategy × route shape or budget: the action recorded after
// the first (failed) attempt is the table's.
func TestWalkClassByStrategyByBudget(t *testing.T) {
	all := make([]string, 0, 12)
	for _, c := range classify.Classes() {
		all = append(all, c.String())
	}
	tailOn := "[" + strings.Join(all, ", ") + "]"
	shapes := []struct {
		name   string
		route  string // route r's YAML, %s is the strategy
		maxAtt int    // the request's own limits
		maxBil int
		want   func(c classify.Class, def decision.Action) decision.Action
	}{
		{"default", `{name: r, strategy: %s, targets: [one, b]}`, 0, 0,
			func(_ classify.Class, def decision.Action) decision.Action { return def }},
		{"tail on every class", `{name: r, strategy: %s, targets: [one, b], tail: [z], tail_on: ` + tailOn + `}`, 0, 0,
			func(_ classify.Class, def decision.Action) decision.Action {
				if def == stopA {
					return tailA
				}
				return def
			}},
		{"fallback_on []", `{name: r, strategy: %s, targets: [one, b], fallback_on: []}`, 0, 0,
			func(c classify.Class, _ decision.Action) decision.Action {
				if c == classify.ServerError {
					return retryA
				}
				return stopA
			}},
		{"fallback_on [] with a tail", `{name: r, strategy: %s, targets: [one, b], fallback_on: [], tail: [z], tail_on: ` + tailOn + `}`, 0, 0,
			func(c classify.Class, _ decision.Action) decision.Action {
				if c == classify.ServerError {
					return retryA
				}
				return tailA
			}},
		{"max_attempts 1", `{name: r, strategy: %s, targets: [one, b], tail: [z], tail_on: ` + tailOn + `}`, 1, 0,
			func(classify.Class, decision.Action) decision.Action { return stopA }},
		{"route max_attempts 1", `{name: r, strategy: %s, targets: [one, b], max_attempts: 1}`, 0, 0,
			func(classify.Class, decision.Action) decision.Action { return stopA }},
		{"max_billable_attempts 1", `{name: r, strategy: %s, targets: [one, b], max_billable_attempts: 1}`, 0, 0,
			func(c classify.Class, def decision.Action) decision.Action {
				if c == classify.Timeout { // the only billable failure here
					return stopA
				}
				return def
			}},
		{"request max_billable 1 under a route's 2", `{name: r, strategy: %s, targets: [one, b], max_billable_attempts: 2}`, 0, 1,
			func(c classify.Class, def decision.Action) decision.Action {
				if c == classify.Timeout {
					return stopA
				}
				return def
			}},
	}
	for _, sh := range shapes {
		for si, s := range route.Strategies() {
			for _, c := range classify.Classes() {
				t.Run(fmt.Sprintf("%s/%s/%s", sh.name, s, c), func(t *testing.T) {
					h := newHarness(t, "  - "+fmt.Sprintf(sh.route, s)+"\n", firstFails(fail(c)))
					res, d := h.do(t, "r", sh.maxAtt, sh.maxBil)
					want := sh.want(c, byStrategy[c][si])
					if len(d.Attempts) == 0 || d.Attempts[0].Action != want {
						t.Fatalf("after %s: %v, want %s first", c, steps(d), want)
					}
					if a := d.Attempts[0]; a.Class != c.String() || a.Billable != (c == classify.Timeout) {
						t.Errorf("first attempt %+v", a)
					}
					// What follows is the next endpoint's answer (ok), or,
					// on a stop, the failure.
					if want == stopA && res.Failure == nil {
						t.Errorf("stopped, yet no failure: %v", steps(d))
					}
					if want != stopA && (res.Failure != nil || len(d.Attempts) != 2) {
						t.Errorf("moved on, yet %v, failure %+v", steps(d), res.Failure)
					}
					// A budget that stopped a move names itself for what it
					// left untried; a class that stops needs no budget.
					moves := byStrategy[c][si] != stopA || strings.Contains(sh.route, "tail:")
					if moves && (sh.maxAtt == 1 || strings.Contains(sh.route, "max_attempts: 1")) {
						wantSkip(t, d, "budget spent: max_attempts 1")
					}
				})
			}
		}
	}
}

// TestWalkNextEndpoint: a target's second endpoint is tried for the classes
// that describe one endpoint (or its account); the others stop there.
func TestWalkNextEndpoint(t *testing.T) {
	want := map[classify.Class]decision.Action{
		classify.Timeout: nextE, classify.RateLimited: nextE, classify.Quota: nextE, classify.ServerError: retryA,
		classify.Unavailable: nextE, classify.Auth: nextE, classify.Forbidden: stopA, classify.Overflow: nextE,
		classify.ContextLength: stopA, classify.Refusal: stopA, classify.BadRequest: stopA, classify.Unknown: nextE,
	}
	for _, c := range classify.Classes() {
		t.Run(c.String(), func(t *testing.T) {
			h := newHarness(t, "  - {name: r, targets: [a], fallback_on: []}\n", firstFails(fail(c)))
			_, d := h.do(t, "r", 0, 0)
			switch w := want[c]; w {
			case nextE:
				wantSteps(t, d, "a/p1 "+c.String()+" next_endpoint", "a/p2 ok done")
			case retryA:
				wantSteps(t, d, "a/p1 "+c.String()+" retry", "a/p1 ok done")
			default:
				wantSteps(t, d, "a/p1 "+c.String()+" stop")
			}
		})
	}
}

// TestWalkRetryAfter: rate_limited waits for a Retry-After within max_wait
// on the same endpoint; a longer one cools the endpoint and moves on.
func TestWalkRetryAfter(t *testing.T) {
	short := answer{class: classify.RateLimited, retryAfter: 10 * time.Millisecond}
	h := newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(short))
	_, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 rate_limited retry", "one/p1 ok done")

	long := answer{class: classify.RateLimited, retryAfter: 2 * time.Second} // max_wait is 1s
	h = newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(long))
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 rate_limited next_target", "b/q ok done")
	wantCooled(t, d, "endpoint", "one/p1")
}

// TestWalkServerErrorRetryAfter: a server error whose answer named a wait
// (Retry-After) is tried again on the same endpoint only after it and only
// within max_wait; the endpoint cools at once for the wait when the
// request does not wait it out there itself (a longer wait moves on at
// once), and a short wait cools it only if the retry fails too
// (docs/behaviour.md, "Rules").
func TestWalkServerErrorRetryAfter(t *testing.T) {
	short := answer{class: classify.ServerError, retryAfter: 60 * time.Millisecond}
	h := newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(short))
	start := time.Now()
	_, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error retry", "one/p1 ok done")
	if took := time.Since(start); took < 60*time.Millisecond {
		t.Errorf("the retry came %s after the first try, before the upstream's Retry-After (60ms)", took)
	}
	if len(d.Transitions) != 0 {
		t.Errorf("the wait was waited out and the retry answered, yet: %+v", d.Transitions)
	}

	twice := func(k health.Key, _ int) answer {
		if k.Provider == "p1" {
			return short
		}
		return okAnswer
	}
	h = newHarness(t, "  - {name: r, targets: [one, b]}\n", twice)
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error retry", "one/p1 server_error next_target", "b/q ok done")
	wantCooled(t, d, "endpoint", "one/p1")
	if st := h.h.View(t.Context(), []health.Key{{Target: "one", Provider: "p1"}})[0]; st.Failures != 2 ||
		st.Until.Sub(h.now) > time.Second {
		t.Errorf("after two server errors that named 60ms: %+v, want 2 failures and a cooldown of the hint, not health.cooldown", st)
	}

	long := answer{class: classify.ServerError, retryAfter: 2 * time.Second} // max_wait is 1s
	h = newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(long))
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error next_target", "b/q ok done")
	wantCooled(t, d, "endpoint", "one/p1")
	if d.Attempts[0].RetryAfterMS != 2000 || !d.Attempts[0].Counted {
		t.Errorf("the first attempt: %+v, want counted, retry_after_ms 2000", d.Attempts[0])
	}
}

// TestWalkServerErrorWaitNotWaited: a short wait a server error named is
// deferred to the request's own retry; when that retry does not happen
// after all (the budget, the deadline, the client leaving), or the attempt
// was a probe, or the wait equals max_wait, the endpoint is still cooled
// for it — never left open for the next requests to pile onto.
func TestWalkServerErrorWaitNotWaited(t *testing.T) {
	short := answer{class: classify.ServerError, retryAfter: 300 * time.Millisecond}
	key := health.Key{Target: "one", Provider: "p1"}
	cooledFor := func(t *testing.T, h *harness, want time.Duration) {
		t.Helper()
		if st := h.h.View(t.Context(), []health.Key{key})[0]; st.Phase != health.Cooling || st.Until.Sub(h.now) != want {
			t.Errorf("one/p1: %+v, want cooling for %s", st, want)
		}
	}

	t.Run("max_attempts 1", func(t *testing.T) {
		h := newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(short))
		_, d := h.do(t, "r", 1, 0)
		wantSteps(t, d, "one/p1 server_error stop")
		wantCooled(t, d, "endpoint", "one/p1")
		cooledFor(t, h, 300*time.Millisecond)
	})
	t.Run("the route's deadline is nearer than the wait", func(t *testing.T) {
		h := newHarness(t, "  - {name: r, targets: [one], deadline: 200ms}\n", firstFails(short))
		_, d := h.do(t, "r", 0, 0)
		wantCooled(t, d, "endpoint", "one/p1")
		cooledFor(t, h, 300*time.Millisecond)
	})
	t.Run("the client leaves during the wait", func(t *testing.T) {
		h := newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(short))
		ctx, cancel := context.WithCancel(t.Context())
		defer time.AfterFunc(100*time.Millisecond, cancel).Stop()
		res := h.d.Run(ctx, testCall("r", 0, 0))
		if !res.Canceled {
			t.Fatalf("result %+v, want canceled", res)
		}
		wantCooled(t, res.Decision, "endpoint", "one/p1")
		cooledFor(t, h, 300*time.Millisecond)
	})
	t.Run("a probe", func(t *testing.T) {
		h := newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(short))
		h.h.Report(t.Context(), key, health.Report{Class: "unavailable", Cool: health.ScopeEndpoint, CoolFor: time.Minute})
		h.now = h.now.Add(2 * time.Minute) // cooling over: probing
		_, d := h.do(t, "r", 0, 0)
		wantSteps(t, d, "one/p1 server_error next_target probe", "b/q ok done")
		if st := h.h.View(t.Context(), []health.Key{key})[0]; st.Phase != health.Cooling {
			t.Errorf("one/p1 after a failed probe that named a wait: %+v, want cooling", st)
		}
	})
	t.Run("a wait of exactly max_wait is waited out", func(t *testing.T) {
		edge := answer{class: classify.ServerError, retryAfter: time.Second} // max_wait is 1s
		h := newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(edge))
		_, d := h.do(t, "r", 0, 0)
		wantSteps(t, d, "one/p1 server_error retry", "one/p1 ok done")
		if len(d.Transitions) != 0 {
			t.Errorf("waited out and answered, yet: %+v", d.Transitions)
		}
	})
}

// TestWalkBudgetSkips: a spent budget stops the walk and names, for every
// endpoint not tried, the budget that stopped it.
func TestWalkBudgetSkips(t *testing.T) {
	h := newHarness(t, "  - {name: r, targets: [one, b], max_attempts: 2}\n", downAt("p1", classify.ServerError))
	res, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error retry", "one/p1 server_error stop")
	wantSkip(t, d, "budget spent: max_attempts 2")
	if res.Failure == nil || res.Failure.Class != classify.ServerError {
		t.Errorf("failure %+v", res.Failure)
	}

	timeouts := func(k health.Key, _ int) answer {
		if k.Provider == "q" {
			return okAnswer
		}
		return fail(classify.Timeout)
	}
	h = newHarness(t, "  - {name: r, targets: [a, b], max_billable_attempts: 2}\n", timeouts)
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "a/p1 timeout next_endpoint", "a/p2 timeout stop")
	wantSkip(t, d, "budget spent: max_billable_attempts 2")
}

// TestWalkProbe: an endpoint back from cooling is tried as the one probe,
// and a failed probe is not retried on the same endpoint.
func TestWalkProbe(t *testing.T) {
	h := newHarness(t, "  - {name: r, targets: [one, b]}\n", firstFails(fail(classify.ServerError)))
	h.h.Report(t.Context(), health.Key{Target: "one", Provider: "p1"},
		health.Report{Class: "unavailable", Cool: health.ScopeEndpoint, CoolFor: time.Minute})
	h.now = h.now.Add(2 * time.Minute) // cooling over: probing
	_, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error next_target probe", "b/q ok done")
}

// TestWalkAccountCoolingSinksLaterTargets: quota cools the provider account,
// so a later target reached only through it goes after the others.
func TestWalkAccountCoolingSinksLaterTargets(t *testing.T) {
	h := newHarness(t, "  - {name: r, targets: [one, c, b]}\n", firstFails(fail(classify.Quota)))
	_, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 quota next_target", "b/q ok done")
	wantCooled(t, d, "account", "p1")
	found := false
	for _, s := range d.Skipped {
		if s.Target == "c" && s.Provider == "p1" && strings.HasPrefix(s.Reason, "cooling until ") {
			found = true
		}
	}
	if !found {
		t.Errorf("c/p1 not skipped as cooling: %+v", d.Skipped)
	}
}

// TestWalkWithinTheTail: inside the tail, tail_on decides each further move.
func TestWalkWithinTheTail(t *testing.T) {
	script := func(k health.Key, _ int) answer {
		if k.Target == "b" {
			return okAnswer
		}
		return fail(classify.Auth)
	}
	h := newHarness(t, "  - {name: r, targets: [one], tail: [z, b], tail_on: [auth]}\n", script)
	_, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 auth tail", "z/y auth tail", "b/q ok done")

	h = newHarness(t, "  - {name: r, targets: [one], tail: [z, b], tail_on: [refusal]}\n", script)
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 auth stop")
}

func wantSkip(t *testing.T, d *decision.Decision, reason string) {
	t.Helper()
	for _, s := range d.Skipped {
		if s.Reason == reason {
			return
		}
	}
	t.Errorf("no endpoint skipped for %q: %+v", reason, d.Skipped)
}

func wantCooled(t *testing.T, d *decision.Decision, scope, name string) {
	t.Helper()
	for _, tr := range d.Transitions {
		if tr.Scope == scope && tr.Name == name && tr.To == "cooling" {
			return
		}
	}
	t.Errorf("%s %s did not cool: %+v", scope, name, d.Transitions)
}

// TestContextLengthIntoTheTail: a context_length failure enters the tail
// only at a target whose declared window is larger, as every other move of
// that class does (docs/behaviour.md#routing).
func TestContextLengthIntoTheTail(t *testing.T) {
	script := func(k health.Key, _ int) answer {
		if k.Target == "b" {
			return okAnswer
		}
		return fail(classify.ContextLength)
	}
	h := newHarness(t, "  - {name: r, targets: [one], tail: [c, b], tail_on: [context_length]}\n", script)
	_, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 context_length tail", "b/q ok done")
	wantSkip(t, d, "context window 0 is not larger than 8000")

	// No larger window in the tail: the request stops with the real answer.
	h = newHarness(t, "  - {name: r, targets: [one], tail: [c], tail_on: [context_length]}\n", script)
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 context_length stop")
}

// A server error is tried again on its endpoint once, but not when that
// very failure cooled the endpoint (the failure_threshold-th in a row) and
// the walk has somewhere else to go: the endpoint is cooling, and one more
// failure there would only push its cooldown further out and spend an
// attempt. With nowhere else, the retry is the request's last chance, and
// it is made (docs/behaviour.md, "Rules").
func TestWalkNoRetryOnTheEndpointItCooled(t *testing.T) {
	p1Down := downAt("p1", classify.ServerError)
	// failure_threshold is 3. Another endpoint of the target: p2.
	h := newHarness(t, "  - {name: r, targets: [a]}\n", p1Down)
	_, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "a/p1 server_error retry", "a/p1 server_error next_endpoint", "a/p2 ok done")
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "a/p1 server_error next_endpoint", "a/p2 ok done")
	wantCooled(t, d, "endpoint", "a/p1")
	if st := h.h.View(t.Context(), []health.Key{{Target: "a", Provider: "p1"}})[0]; st.Failures != 3 {
		t.Errorf("p1 after the second request: %+v, want 3 failures", st)
	}

	// Another target: b.
	h = newHarness(t, "  - {name: r, targets: [one, b]}\n", p1Down)
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error retry", "one/p1 server_error next_target", "b/q ok done")
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error next_target", "b/q ok done")

	// Nowhere else: the target alone, one endpoint.
	h = newHarness(t, "  - {name: r, targets: [one]}\n", p1Down)
	_, d = h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error retry", "one/p1 server_error stop")
	res, d := h.do(t, "r", 0, 0)
	wantSteps(t, d, "one/p1 server_error retry", "one/p1 server_error stop")
	wantCooled(t, d, "endpoint", "one/p1")
	if res.Failure == nil {
		t.Error("no failure after four server errors")
	}
}
