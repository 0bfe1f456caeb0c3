package health

import (
	"testing"
	"time"
)

// One probe at a time per cooling endpoint (and account), across replicas:
// a probe that outlived its lease (its upstream slow to answer) and then
// ended with nothing learned (the client left) gave the slot back by
// clearing it, whoever held it by then — another request that had taken
// the expired slot lost it, and a third could probe beside it (review
// 40d). A release gives back only the lease it took.
func TestAReleaseGivesBackOnlyItsOwnLease(t *testing.T) {
	for _, sc := range []struct {
		name string
		cool Report
		ep   Key
	}{
		{"endpoint", Report{Class: "server_error", Cool: ScopeEndpoint, CoolFor: 10 * time.Second}, epA},
		{"account", Report{Class: "quota", Cool: ScopeAccount, CoolFor: 10 * time.Second}, epA},
	} {
		t.Run(sc.name, func(t *testing.T) {
			c := newClock()
			s := Settings{FailureThreshold: 1, Cooldown: 10 * time.Second, MaxCooldown: time.Minute, ProbeLease: 30 * time.Second}
			store := NewMemory()
			a := New(store, s, all3, c.Now) // two replicas sharing one store
			b := New(store, s, all3, c.Now)
			a.Report(ctx, sc.ep, sc.cool)
			c.Advance(10 * time.Second)
			ok, first, _ := a.TryProbeLease(ctx, sc.ep)
			if !ok || first.IsZero() {
				t.Fatal("the first probe was refused")
			}
			c.Advance(31 * time.Second) // its lease runs out before it ends
			ok, second, _ := b.TryProbeLease(ctx, sc.ep)
			if !ok || !second.After(first) {
				t.Fatal("the expired lease was not taken over")
			}
			a.Report(ctx, sc.ep, Report{Release: true, Lease: first}) // the first probe's client left
			if ok, _, _ := a.TryProbeLease(ctx, sc.ep); ok {
				t.Fatal("a third request probes beside the second: the first's release freed the second's lease")
			}
			b.Report(ctx, sc.ep, Report{Release: true, Lease: second})
			if ok, _, _ := a.TryProbeLease(ctx, sc.ep); !ok {
				t.Fatal("the second's own release did not give the slot back")
			}
		})
	}
}
