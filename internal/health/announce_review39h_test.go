package health

import (
	"testing"
	"time"
)

// An operator reads each health change once: the decision record of the
// request that caused it, the "health transition" log line and /metrics.
// An account closed by its probe's success was announced closed then, and a
// later request touching the account must not announce probing→healthy a
// second time (review 39h: the decision log showed the recovery twice, the
// second in an unrelated request, with the old cooldown's class).
func TestReview39hAccountClosedByProbeIsAnnouncedOnce(t *testing.T) {
	for _, later := range []struct {
		name string
		r    Report
		want []Transition
	}{
		{"account cooled again", Report{Class: "quota", Cool: ScopeAccount, CoolFor: 10 * time.Second},
			[]Transition{{Scope: ScopeAccount, Name: "anthropic", From: Healthy, To: Cooling, Class: "quota"}}},
		{"inconclusive probe released", Report{Class: "bad_request", Release: true}, nil},
	} {
		t.Run(later.name, func(t *testing.T) {
			c := newClock()
			s := Settings{FailureThreshold: 3, Cooldown: 10 * time.Second, MaxCooldown: 35 * time.Second, ProbeLease: 30 * time.Second}
			tr := New(NewMemory(), s, all3, c.Now)
			opened := c.Now()
			tr.Report(ctx, epA, Report{Class: "auth", Cool: ScopeAccount, CoolFor: 10 * time.Second})
			c.Advance(10 * time.Second)
			if ok, _ := tr.TryProbe(ctx, epB); !ok {
				t.Fatal("account probe refused")
			}
			wantTr(t, tr.Report(ctx, epB, Report{OK: true}),
				Transition{Scope: ScopeAccount, Name: "anthropic", From: Probing, To: Healthy, Class: "auth", Since: opened})
			c.Advance(time.Second)
			got := tr.Report(ctx, epA, later.r)
			for i := range got {
				got[i].Until = time.Time{}
			}
			wantTr(t, got, later.want...)
		})
	}
}
