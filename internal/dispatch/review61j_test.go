package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// Review 61j: the retry advice once read "retry" for any class that cools
// at once, where a concurrent request cooled the stop first. For auth and
// quota what cools is the account: a target left on the same account is
// cooling too, but this walk's stale view (no transition seen, so
// w.cooled never marked the account's keys) reads it healthy, and the
// client is told to retry at once. The same request, had it cooled the
// account itself, is told not to retry (TestWalkAdvisesNoRetry, "a key
// rejected, the target left on the same account").
func TestReview61jConcurrentAccountCoolTargetLeftSameAccount(t *testing.T) {
	var h *harness
	h = newHarness(t, "  - {name: r, targets: [one, c]}\n", func(k health.Key, _ int) answer {
		if k.Provider == "p1" {
			// The other request's report lands first: the account cools.
			h.h.Report(context.Background(), k, health.Report{Class: classify.Auth.String(), Count: true, Cool: health.ScopeAccount, CoolFor: time.Hour})
			return fail(classify.Auth)
		}
		return okAnswer
	})
	res, _ := h.do(t, "r", 0, 0)
	f := res.Failure
	if f == nil || f.Class != classify.Auth {
		t.Fatalf("failure %+v, want auth", f)
	}
	if !f.NoRetry {
		t.Error("NoRetry false: the target left (c) is on p1, whose account is cooling; the client's next request meets the same rejected key")
	}
}
