package dispatch

import (
	"context"
	"testing"
)

// TestReview57bDeadlineStallKeepsSDKRetry: e2a394a says x-should-retry:
// false comes "only after timeouts the endpoint's other answers excused
// (this request's own length), not after a counted one, which may be a
// stall that passes". comeBack tests `a.Billable && !a.Counted`; but an
// attempt the route's deadline ended (ownLimit, evidence timeout:deadline)
// is recorded with Counted false without lengthy ever being asked, so a
// hung upstream that ran into the route's deadline (docs/config.md: "a hung
// upstream runs into the deadline first") is told x-should-retry: false,
// stream or not (the previous condition kept streams' timeouts retryable).
func TestReview57bDeadlineStallKeepsSDKRetry(t *testing.T) {
	for _, stream := range []bool{false, true} {
		h := newHarness(t, "  - {name: r, targets: [one]}\n", nil)
		h.d.call = func(_ context.Context, _ *walk, _ *endpointRT) *outcome {
			o := &outcome{billable: true} // sent; the upstream said nothing before the deadline
			o.expired(PhaseDeadline, "")
			return o
		}
		call := testCall("r", 0, 0)
		call.Stream = stream
		res := h.d.Do(context.Background(), call)
		if res.Failure == nil {
			t.Fatalf("stream %v: no failure", stream)
		}
		a := res.Decision.Attempts[0]
		if res.Failure.NoRetry {
			t.Errorf("stream %v: a stall that ran into the route's deadline (attempt class %s, evidence %q, counted %v, billable %v) says x-should-retry: false; no other answer excused it",
				stream, a.Class, a.Evidence, a.Counted, a.Billable)
		}
	}
}
