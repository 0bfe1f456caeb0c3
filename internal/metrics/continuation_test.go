package metrics

import "testing"

// Continuations are counted by route, mode and outcome; a value outside the
// vocabularies is "other", and a nil Metrics does nothing.
func TestScrapeContinuations(t *testing.T) {
	m := New()
	m.Continuation("deep", "replay", "ok")
	m.Continuation("deep", "replay", "ok")
	m.Continuation("deep", "prefill", "refused")
	m.Continuation("deep", "none", "budget")
	m.Continuation("deep", "splice", "whatever")
	f := scrape(t, m)
	for _, c := range []struct {
		mode, outcome string
		want          float64
	}{{"replay", "ok", 2}, {"prefill", "refused", 1}, {"none", "budget", 1}, {"other", "other", 1}} {
		if v := counter(t, f, "detour_continuations_total", "route=deep", "mode="+c.mode, "outcome="+c.outcome); v != c.want {
			t.Errorf("%s %s = %v, want %v", c.mode, c.outcome, v, c.want)
		}
	}
	var nilM *Metrics
	nilM.Continuation("deep", "replay", "ok")
}
