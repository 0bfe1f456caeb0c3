package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 30h. docs/scale.md, Reload: an endpoint whose target now names
// another model (or whose provider has another URL) "starts healthy", and an
// account whose key changed too; internal/app forgetChanged calls
// Tracker.Forget / ForgetAccount at the reload. On a Redis store that cannot
// reach Redis at that moment, Forget clears only the local mirror and
// journals nothing (the journal keeps only a cooldown that grew), so when
// Redis answers again the old model's 24h "unavailable" (and the old key's
// account cooldown) is read back from Redis: the corrected model is not
// tried for the rest of the day, on this replica and every other.
func TestForgetDuringARedisOutageOutlivesTheOutage(t *testing.T) {
	srv := redistest.Start(t)
	cut := redistest.StartProxy(t, srv.Addr())
	c := newClock()
	s := newStore(t, RedisConfig{URL: cut.URL()}, "fgt:", c.Now, nil)
	tr := New(s, Settings{}, all3, c.Now)
	tr.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	tr.Report(ctx, epC, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Hour})
	if st := view1(tr, epA); st.Phase != Cooling {
		t.Fatalf("before: %+v, want cooling", st)
	}

	cut.Cut()
	tr.Forget(ctx, epA)                 // the reload corrected the model
	tr.ForgetAccount(ctx, epC.Provider) // and rotated the key
	if st := view1(tr, epA); st.Phase != Healthy {
		t.Fatalf("right after the reload, with Redis cut off: %+v, want healthy", st)
	}

	cut.Heal()
	c.Advance(retryEvery)
	view1(tr, epA) // the first operation once Redis is due for a retry
	if st := view1(tr, epA); st.Phase != Healthy {
		t.Errorf("after Redis came back, the endpoint a reload cleared reads %s (class %q, until %v): the old model's cooldown came back from Redis",
			st.Phase, st.LastClass, st.Until)
	}
	if st := view1(tr, epC); st.Phase != Healthy {
		t.Errorf("after Redis came back, the account whose key a reload rotated reads %s (class %q)", st.Phase, st.LastClass)
	}
}

// With Redis answering, Forget clears the record for every replica at once
// (another store over the same Redis reads it healthy), and nothing is
// left journaled to replay at a later outage; an endpoint not forgotten
// keeps its cooldown.
func TestForgetWithRedisUpClearsItForEveryReplica(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	one := New(newStore(t, RedisConfig{URL: srv.URL()}, "fup:", c.Now, nil), Settings{}, all3, c.Now)
	s2 := newStore(t, RedisConfig{URL: srv.URL()}, "fup:", c.Now, nil)
	two := New(s2, Settings{}, all3, c.Now)
	one.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	one.Report(ctx, epC, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	if st := view1(two, epA); st.Phase != Cooling {
		t.Fatalf("before: the other replica reads %+v, want cooling", st)
	}
	two.Forget(ctx, epA)
	if st := view1(one, epA); st.Phase != Healthy {
		t.Errorf("after Forget on the other replica: %+v, want healthy", st)
	}
	if st := view1(one, epC); st.Phase != Cooling {
		t.Errorf("an endpoint not forgotten: %+v, want still cooling", st)
	}
	s2.jmu.Lock()
	left := len(s2.resets)
	s2.jmu.Unlock()
	if left != 0 {
		t.Errorf("%d reset(s) left journaled with Redis up", left)
	}
}
