package dispatch

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// TestWalkTellsTheFailureThatMayPass: when nothing answers, a client is told
// the latest failure, except that one saying its endpoint will not serve the
// request soon (a model gone, a key rejected, an account spent) does not
// hide an earlier one that may pass: the client gets the rate limit and its
// Retry-After, which its SDK waits out and retries, whichever order the
// route tried them in, instead of a 404 its SDK takes as final
// (docs/behaviour.md#api, "When nothing answers"; review 39f).
func TestWalkTellsTheFailureThatMayPass(t *testing.T) {
	limited := answer{class: classify.RateLimited, retryAfter: 26 * time.Second}
	for _, c := range []struct {
		name   string
		route  string
		script map[string]answer
		class  classify.Class
		wait   time.Duration
	}{
		{"a model gone after a rate limit, two targets", "{name: r, targets: [b, one]}",
			map[string]answer{"q": limited, "p1": fail(classify.Unavailable)}, classify.RateLimited, 26 * time.Second},
		{"a model gone after a rate limit, one target's endpoints", "{name: r, targets: [a]}",
			map[string]answer{"p1": limited, "p2": fail(classify.Unavailable)}, classify.RateLimited, 26 * time.Second},
		{"a rate limit after a model gone", "{name: r, targets: [a]}",
			map[string]answer{"p1": fail(classify.Unavailable), "p2": limited}, classify.RateLimited, 26 * time.Second},
		{"an account spent after a rate limit", "{name: r, targets: [a]}",
			map[string]answer{"p1": limited, "p2": fail(classify.Quota)}, classify.RateLimited, 26 * time.Second},
		{"a key rejected after a timeout", "{name: r, targets: [b, one]}",
			map[string]answer{"q": fail(classify.Timeout), "p1": fail(classify.Auth)}, classify.Timeout, 0},
		// Two lasting failures: the latest, as before.
		{"a key rejected after a model gone", "{name: r, targets: [a]}",
			map[string]answer{"p1": fail(classify.Unavailable), "p2": fail(classify.Auth)}, classify.Auth, 0},
		// The request at fault is always told: it stops the walk.
		{"a bad request after a rate limit", "{name: r, targets: [b, one]}",
			map[string]answer{"q": limited, "p1": fail(classify.BadRequest)}, classify.BadRequest, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := newHarness(t, "  - "+c.route+"\n", func(k health.Key, _ int) answer {
				if a, ok := c.script[k.Provider]; ok {
					return a
				}
				return okAnswer
			})
			res, _ := h.do(t, "r", 0, 0)
			f := res.Failure
			if f == nil || f.Class != c.class {
				t.Fatalf("failure %+v, want class %s", f, c.class)
			}
			if f.RetryAfter < c.wait-time.Second || f.RetryAfter > c.wait {
				t.Errorf("Retry-After %v, want %v", f.RetryAfter, c.wait)
			}
		})
	}
}
