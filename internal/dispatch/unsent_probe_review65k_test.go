package dispatch

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
)

// Review 65k. An attempt Detour did not send (here: its translation did
// not fit the request-body allowance, which happens under memory pressure)
// is reported to health only to give a probe's slot back (finish, review
// 65i). At an endpoint whose cooldown is over, the unsent attempt holds its
// probe: the slot must come back at once (not at the lease's end), the
// endpoint must stay probing (nothing was learned), and its last_class must
// not become the unsent attempt's unknown. Both as the probe's first
// attempt and as the resend after a refused sampling member, which keeps
// the probe (sampling.go). Passes: a pin of what 2e4fe84b kept.
func TestReview65kUnsentAttemptGivesTheProbeBack(t *testing.T) {
	key := health.Key{Target: "one", Provider: "p1"}
	for _, tc := range []struct {
		name  string
		route string
		call  func(h *harness) *Call
		step  func(n int, k health.Key) (int, string, bool) // status, message, unsent
	}{
		{"first attempt unsent, b answers", "  - {name: r, targets: [one, b]}\n", func(*harness) *Call { return testCall("r", 0, 0) },
			func(n int, k health.Key) (int, string, bool) {
				if k == key {
					return 0, "", true
				}
				return 200, "", false
			}},
		{"first attempt unsent, nothing else", "  - {name: r, targets: [one]}\n", func(*harness) *Call { return testCall("r", 0, 0) },
			func(int, health.Key) (int, string, bool) { return 0, "", true }},
		{"resend without the refused member unsent", "  - {name: r, targets: [one, b]}\n", func(*harness) *Call { return doorCall("r") },
			func(n int, k health.Key) (int, string, bool) {
				switch {
				case n == 1:
					return 400, refusedTemperature, false
				case k == key:
					return 0, "", true
				}
				return 200, "", false
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, tc.route, nil)
			h.h.Report(t.Context(), key, health.Report{Class: "unavailable", Count: true, Cool: health.ScopeEndpoint, CoolFor: time.Minute})
			h.now = h.now.Add(2 * time.Minute) // cooling over: probing
			if st := h.h.View(t.Context(), []health.Key{key})[0]; st.Phase != health.Probing {
				t.Fatalf("one/p1: %+v, want probing", st)
			}
			n := 0
			h.d.call = func(_ context.Context, w *walk, e *endpointRT) *outcome {
				n++
				st, msg, unsent := tc.step(n, e.key)
				o := &outcome{status: st}
				switch {
				case unsent:
					withHeaders(e, nil, errAllowance, o)
				case st == http.StatusOK:
					o.ok, o.body = true, []byte(`{"object":"chat.completion"}`)
				default:
					o.failWith(classify.Verdict{Class: classify.BadRequest, Evidence: "status:400"}, msg)
				}
				return o
			}
			res := h.d.Do(t.Context(), tc.call(h))
			t.Logf("steps: %v", steps(res.Decision))
			probed := false
			for _, a := range res.Decision.Attempts {
				if a.Target == "one" && a.Evidence == decision.EvidenceAllowance {
					probed = probed || a.Probe
				}
			}
			if !probed {
				t.Fatalf("the unsent attempt at one/p1 was not its probe: %v", steps(res.Decision))
			}
			st := h.h.View(t.Context(), []health.Key{key})[0]
			if st.Phase != health.Probing || st.ProbeHeld {
				t.Errorf("after an unsent probe: %+v, want probing with the slot free", st)
			}
			if st.LastClass == "unknown" {
				t.Errorf("after an unsent probe, last_class %q: the attempt's, which no upstream answered", st.LastClass)
			}
			if ok, _, _ := h.h.TryProbeLease(context.Background(), key); !ok {
				t.Errorf("the next request could not take one/p1's probe: the unsent attempt kept it until its lease ends")
			}
		})
	}
}
