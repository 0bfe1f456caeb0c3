package dispatch

import (
	"context"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
)

// Review 65k. A refused prefill is resent to the same endpoint at once, by
// replay (refusedPrefill), as a refused sampling member is resent without
// it. Review 48c made a probe whose refusal is resent keep its slot for
// the resend (finish's Release leaves out samplingRefusal,
// signatureRefusal and encodingRefusal), but not a refused prefill's: the
// probe's slot was given back at the refusal while the replay still ran
// there as the probe, and another request (or replica) took the probe
// too: two requests at an endpoint that was to get one, each failure of
// which cools it again as a failed probe.
func TestReview65kRefusedPrefillReplayKeepsTheProbe(t *testing.T) {
	key := health.Key{Target: "b", Provider: "q"}
	var h *contHarness
	var other, tried bool
	h = newContHarness(t, `{name: r, targets: [c, b], on_stream_cut: continue}`, func(k health.Key, n int) play {
		switch n {
		case 1:
			return cutAfter(2, classify.ServerError)
		case 2:
			return play{status: 400, msg: "This model does not support assistant message prefill. The conversation must end with a user message."}
		case 3: // the replay at b/q: another request arrives meanwhile
			tried = true
			other, _, _ = h.d.opt.Health.TryProbeLease(context.Background(), key)
		}
		return wholePlay
	})
	h.d.opt.Health.Report(t.Context(), key, health.Report{Class: "unavailable", Count: true, Cool: health.ScopeEndpoint, CoolFor: time.Millisecond})
	time.Sleep(5 * time.Millisecond) // cooling over: probing
	if st := h.d.opt.Health.View(t.Context(), []health.Key{key})[0]; st.Phase != health.Probing {
		t.Fatalf("b/q: %+v, want probing", st)
	}
	out, res := h.stream(t, "r", 0)
	wantClean(t, out, res)
	wantSteps(t, res.Decision, "c/y server_error next_target", "b/q bad_request retry probe", "b/q ok done probe")
	if !tried {
		t.Fatal("no replay at b/q")
	}
	if other {
		t.Errorf("while the walk's replay of its probe ran at b/q, another request took the probe as well")
	}
}

// The same with the budget spent at the refusal: no replay is made, and
// the slot the refusal kept comes back at once (target.go's budget branch).
func TestReview65kRefusedPrefillWithoutBudgetGivesTheProbeBack(t *testing.T) {
	key := health.Key{Target: "b", Provider: "q"}
	h := newContHarness(t, `{name: r, targets: [c, b], on_stream_cut: continue, max_attempts: 2}`, func(k health.Key, n int) play {
		if n == 1 {
			return cutAfter(2, classify.ServerError)
		}
		return play{status: 400, msg: "Prefilling assistant messages is not supported for this model."}
	})
	h.d.opt.Health.Report(t.Context(), key, health.Report{Class: "unavailable", Count: true, Cool: health.ScopeEndpoint, CoolFor: time.Millisecond})
	time.Sleep(5 * time.Millisecond)
	_, res := h.stream(t, "r", 0)
	wantSteps(t, res.Decision, "c/y server_error next_target", "b/q bad_request stop probe")
	if st := h.d.opt.Health.View(t.Context(), []health.Key{key})[0]; st.Phase != health.Probing || st.ProbeHeld {
		t.Errorf("b/q after its refused prefill and no replay: %+v, want probing with the slot free", st)
	}
}
