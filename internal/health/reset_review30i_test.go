package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 30i. RedisStore.Reset (review 30h) journals a reset it cannot
// write to Redis, and reconcile writes the journaled resets back, first.
// But a reset that arrives while this replica is reconciling (try answers
// false: s.reconciling) is journaled after writeResets has run: reconcile
// then ends, Redis is "back", and nothing writes that reset until the next
// outage. The reload's Forget cleared only the local mirror, so the very
// next read, from Redis, brings the old model's 24h cooldown back (the bug
// review 30h fixed, in this window); and the stale reset waits in the
// journal to erase whatever the endpoint has in Redis at the next outage,
// days later (a cooldown the new model earned on every replica).
// localUpdate closes the same window for a cooldown (the !s.down check
// after journaling); Reset does not.
func TestResetDuringReconcileIsWritten(t *testing.T) {
	srv := redistest.Start(t)
	cut := redistest.StartProxy(t, srv.Addr())
	c := newClock()
	s := newStore(t, RedisConfig{URL: cut.URL()}, "rst:", c.Now, nil)
	tr := New(s, Settings{}, all3, c.Now)
	// The old model is gone: a day's cooldown, in Redis.
	tr.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	if st := view1(tr, epA); st.Phase != Cooling {
		t.Fatalf("before: %+v, want cooling", st)
	}

	// An outage, during which something else is learned (journaled).
	cut.Cut()
	tr.Report(ctx, epC, Report{Class: "timeout", Cool: ScopeEndpoint, CoolFor: time.Minute})
	if len(s.Journaled()) == 0 {
		t.Fatal("nothing journaled during the outage")
	}

	// Redis comes back, slowly: the write-back takes a while.
	cut.Heal()
	cut.SlowCommands(300 * time.Millisecond)
	c.Advance(retryEvery)
	back := make(chan struct{})
	go func() { defer close(back); view1(tr, epC) }() // the first operation reconciles
	deadline := time.Now().Add(5 * time.Second)
	for {
		s.mu.Lock()
		r := s.reconciling
		s.mu.Unlock()
		if r {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("reconcile never started")
		}
		time.Sleep(5 * time.Millisecond)
	}
	// A reload corrects the model while the write-back runs.
	tr.Forget(ctx, epA)
	<-back
	cut.SlowCommands(0)

	if st := view1(tr, epA); st.Phase != Healthy {
		t.Errorf("the endpoint a reload cleared during the write-back reads %s (class %q, until %v) once Redis is back: the reset was journaled after the resets were written and the old model's cooldown came back from Redis",
			st.Phase, st.LastClass, st.Until)
	}
	s.jmu.Lock()
	n := len(s.resets)
	s.jmu.Unlock()
	if n != 0 {
		t.Errorf("%d reset(s) still journaled with Redis up: replayed at the next outage, they erase whatever the endpoint has in Redis then", n)
	}
}
