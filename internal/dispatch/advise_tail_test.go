package dispatch

import (
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// TestTailAuthDoesNotReachIsNoReason: the targets the rules did not move on
// to count for x-should-retry, the route's tail not among them: auth does
// not reach a tail whose tail_on does not list it, and a cooling endpoint
// is tried last, never skipped, so a route whose only target answered with
// a rejected key meets it again on the client's retry and stops there
// again. The answer says not to retry (it did not, when the tail counted).
func TestTailAuthDoesNotReachIsNoReason(t *testing.T) {
	script := func(k health.Key, _ int) answer {
		if k.Provider == "p1" {
			return fail(classify.Auth)
		}
		return okAnswer
	}
	h := newHarness(t, "  - {name: r, targets: [one], tail: [b], tail_on: [timeout, server_error]}\n", script)
	res, _ := h.do(t, "r", 0, 0)
	if f := res.Failure; f == nil || f.Class != classify.Auth {
		t.Fatalf("failure %+v, want auth", res.Failure)
	}
	advised := !res.Failure.NoRetry
	// The SDK's retry: the same walk, the same stop.
	again, _ := h.do(t, "r", 0, 0)
	if advised && again.Failure != nil && again.Failure.Class == classify.Auth {
		t.Errorf("told to retry (no x-should-retry: false), and the retry stops at one/p1's rejected key again")
	}
}
