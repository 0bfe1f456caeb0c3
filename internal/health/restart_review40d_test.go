package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// A Redis kept without persistence (the usual cache deployment, a pod
// rescheduled, an OOM kill) comes back empty. The fleet relies on what it
// learned staying learned: a model found gone is skipped for the day, a
// rejected account cools, on every replica. As first built a restart
// erased every running cooldown without a log line (go-redis reconnects
// before the next command, so no outage is seen): each replica read the
// empty Redis over its own copy, and every gone model and capped account
// was tried again by the whole fleet.
func TestReview40dARedisRestartedEmptyKeepsTheFleetsCooldowns(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	a := New(newRedisStore(t, srv, "rs:", c.Now, nil), Settings{}, all3, c.Now)
	b := New(newRedisStore(t, srv, "rs:", c.Now, nil), Settings{}, all3, c.Now)
	a.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	a.Report(ctx, epC, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Hour})
	b.Report(ctx, epB, Report{OK: true, Latency: time.Millisecond})
	if st := b.View(ctx, all3); st[0].Phase != Cooling || st[2].Phase != Cooling {
		t.Fatalf("before the restart b sees %+v", st)
	}

	srv.Kill()
	srv.Start(t) // empty
	c.Advance(time.Minute)
	for name, tr := range map[string]*Tracker{"a (learned it)": a, "b (read it)": b} {
		if st := tr.View(ctx, all3); st[0].Phase != Cooling || st[0].LastClass != "unavailable" || st[2].Phase != Cooling {
			t.Errorf("after Redis restarted empty, replica %s sees %+v, want the gone model and the rejected account cooling", name, st)
		}
	}
	// The replica that wrote the cooldowns back (the first to read them
	// missing; the other then found them) says Redis lost its state (GET
	// /v1/health's state.lost_at).
	if a.Sharing().LostAt.IsZero() && b.Sharing().LostAt.IsZero() {
		t.Error("a replica wrote lost cooldowns back, and neither's state says Redis lost its state")
	}
	// A replica started after the restart learns it from Redis.
	fresh := New(newRedisStore(t, srv, "rs:", c.Now, nil), Settings{}, all3, c.Now)
	if st := fresh.View(ctx, all3); st[0].Phase != Cooling || st[2].Phase != Cooling || st[1].Phase != Healthy {
		t.Errorf("a replica started after the restart sees %+v, want the cooldowns written back", st)
	}
	if at := fresh.Sharing().LostAt; !at.IsZero() {
		t.Errorf("a replica that found everything in Redis says it lost its state at %v", at)
	}
	// What had ended is not brought back.
	c.Advance(24 * time.Hour)
	if st := view1(fresh, epA); st.Phase == Cooling {
		t.Errorf("a day later the gone model still cools: %+v", st)
	}
}

// Operator review 55: an endpoint whose cooldown was over but that had not
// answered since (probing, its failures and cause kept) read healthy, with
// no failures and no cause, on every replica once Redis restarted empty:
// only a running cooldown was written back. It is written back too.
func TestRedisRestartedEmptyKeepsAProbingEndpoint_op55(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	a := New(newRedisStore(t, srv, "rs:", c.Now, nil), Settings{}, all3, c.Now)
	a.Report(ctx, epA, Report{Class: "server_error", Count: true, Cool: ScopeEndpoint, CoolFor: time.Minute})
	c.Advance(2 * time.Minute) // the cooldown is over; no request has probed it
	if st := view1(a, epA); st.Phase != Probing {
		t.Fatalf("before the restart a sees %+v, want probing", st)
	}
	srv.Kill()
	srv.Start(t) // empty
	st := view1(a, epA)
	if st.Phase != Probing || st.LastClass != "server_error" || st.Failures == 0 {
		t.Errorf("after Redis restarted empty a sees %+v, want still probing for server_error", st)
	}
	fresh := New(newRedisStore(t, srv, "rs:", c.Now, nil), Settings{}, all3, c.Now)
	if st := view1(fresh, epA); st.Phase != Probing {
		t.Errorf("a replica started after the restart sees %+v, want the probing endpoint written back", st)
	}
	// A record closed long ago is not brought back: a day after its
	// cooldown the key has expired of itself.
	c.Advance(25 * time.Hour)
	srv.Kill()
	srv.Start(t)
	b := New(newRedisStore(t, srv, "rs:", c.Now, nil), Settings{}, all3, c.Now)
	_ = view1(a, epA)
	if st := view1(b, epA); st.Phase != Healthy {
		t.Errorf("a day past its cooldown the endpoint was written back: %+v", st)
	}
}
