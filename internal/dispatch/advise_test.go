package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// TestWalkAdvisesNoRetry: a failed request tells the client not to retry it
// (x-should-retry: false) exactly when no endpoint it tried or had left will
// serve it soon, when the request is at fault, or when its billable budget
// is spent; otherwise the SDK's own retry is left to it
// (docs/behaviour.md#api, "Whether to retry").
func TestWalkAdvisesNoRetry(t *testing.T) {
	by := func(m map[string]answer) func(health.Key, int) answer {
		return func(k health.Key, _ int) answer {
			if a, ok := m[k.Provider]; ok {
				return a
			}
			return okAnswer
		}
	}
	limited := answer{class: classify.RateLimited, retryAfter: 5 * time.Second}
	for _, c := range []struct {
		name    string
		route   string
		script  map[string]answer
		class   classify.Class
		noRetry bool
	}{
		{"every account spent", "{name: r, targets: [a]}",
			map[string]answer{"p1": fail(classify.Quota), "p2": fail(classify.Quota)}, classify.Quota, true},
		{"one account spent, another endpoint timed out", "{name: r, targets: [a]}",
			map[string]answer{"p1": fail(classify.Timeout), "p2": fail(classify.Quota)}, classify.Quota, false},
		{"a key rejected and a model gone", "{name: r, targets: [a]}",
			map[string]answer{"p1": fail(classify.Auth), "p2": fail(classify.Unavailable)}, classify.Unavailable, true},
		{"a bad request", "{name: r, targets: [one]}",
			map[string]answer{"p1": fail(classify.BadRequest)}, classify.BadRequest, true},
		{"a bad request after timeouts elsewhere", "{name: r, targets: [a, b]}",
			map[string]answer{"p1": fail(classify.Timeout), "p2": fail(classify.Timeout), "q": fail(classify.Refusal)}, classify.Refusal, true},
		{"too large here, timed out there", "{name: r, targets: [one, b]}",
			map[string]answer{"p1": fail(classify.Overflow), "q": fail(classify.Timeout)}, classify.Timeout, false},
		{"server errors", "{name: r, targets: [one, b]}",
			map[string]answer{"p1": fail(classify.ServerError), "q": fail(classify.ServerError)}, classify.ServerError, false},
		{"rate limits naming a wait", "{name: r, targets: [one, b]}",
			map[string]answer{"p1": limited, "q": limited}, classify.RateLimited, false},
		{"billable budget spent", "{name: r, targets: [one, b], max_billable_attempts: 1}",
			map[string]answer{"p1": fail(classify.Timeout)}, classify.Timeout, true},
		// The budget spent by the walk's very last attempt: nothing was
		// left to stop, and the SDK's retry would still pay again.
		{"billable budget spent by the last attempt", "{name: r, targets: [one], max_billable_attempts: 1}",
			map[string]answer{"p1": fail(classify.Timeout)}, classify.Timeout, true},
		{"billable budget spent at the last target", "{name: r, targets: [one, b], max_billable_attempts: 2}",
			map[string]answer{"p1": fail(classify.Timeout), "q": fail(classify.Timeout)}, classify.Timeout, true},
		{"billable budget not spent", "{name: r, targets: [one, b], max_billable_attempts: 3}",
			map[string]answer{"p1": fail(classify.Timeout), "q": fail(classify.Timeout)}, classify.Timeout, false},
		{"attempt budget spent", "{name: r, targets: [one, b], max_attempts: 1}",
			map[string]answer{"p1": fail(classify.Timeout)}, classify.Timeout, false},
		// An ordered route stops at a gone model or a rejected key, which
		// this request cooled: the client's next request skips it and
		// reaches the next target at once, so a retry helps.
		{"a model gone where the route stops, a target left", "{name: r, targets: [one, b]}",
			map[string]answer{"p1": fail(classify.Unavailable)}, classify.Unavailable, false},
		{"a key rejected where the route stops, a target left", "{name: r, targets: [one, b]}",
			map[string]answer{"p1": fail(classify.Auth)}, classify.Auth, false},
		// Access denied cools only after failure_threshold in a row: the
		// next request meets the same endpoint first and stops there again.
		{"access denied where the route stops, a target left", "{name: r, targets: [one, b]}",
			map[string]answer{"p1": fail(classify.Forbidden)}, classify.Forbidden, true},
		// The target left shares the rejected key's account: cooled too.
		{"a key rejected, the target left on the same account", "{name: r, targets: [one, c]}",
			map[string]answer{"p1": fail(classify.Auth)}, classify.Auth, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "  - "+c.route+"\n", by(c.script))
			res, _ := h.do(t, "r", 0, 0)
			f := res.Failure
			if f == nil || f.Class != c.class {
				t.Fatalf("failure %+v, want class %s", f, c.class)
			}
			if f.NoRetry != c.noRetry {
				t.Errorf("NoRetry %v, want %v", f.NoRetry, c.noRetry)
			}
		})
	}
}

// A concurrent request that cooled the endpoint a moment before this one's
// attempt there ended leaves this walk no transition to see: its view of
// health still read the endpoint healthy, and it told the client not to
// retry though its next request skips the cooled endpoint and reaches the
// next target at once (operator review 61f saw x-should-retry: false once,
// a healthy backup untried). The report's update finds the endpoint
// cooling whoever cooled it (health.Seen), and the walk's view says so.
func TestWalkAdvisesRetryWhenAnotherRequestCooledTheStop(t *testing.T) {
	var h *harness
	h = newHarness(t, "  - {name: r, targets: [one, b]}\n", func(k health.Key, _ int) answer {
		if k.Provider == "p1" {
			// The other request's report lands first.
			h.h.Report(context.Background(), k, health.Report{Class: classify.Unavailable.String(), Cool: health.ScopeEndpoint, CoolFor: time.Hour})
			return fail(classify.Unavailable)
		}
		return okAnswer
	})
	res, _ := h.do(t, "r", 0, 0)
	f := res.Failure
	if f == nil || f.Class != classify.Unavailable {
		t.Fatalf("failure %+v, want unavailable", f)
	}
	if f.NoRetry {
		t.Error("NoRetry: the route's next target serves the client's next request at once, as if this request had cooled the endpoint itself")
	}
}
