package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 55: since b9e1355 a replica writes back a *probing* record (a
// cooldown over, never closed) when it finds its key missing from Redis.
// Its copy is the one it last read or wrote, which may be hours stale: an
// endpoint another replica probed and closed since (the probe succeeded)
// is, after Redis restarts empty, written back as probing, with the old
// failures and cause, by a replica that did not serve it in between. Before
// b9e1355 only a running cooldown was written back, and a running cooldown
// cannot have been closed by a probe. A probing copy is written back now
// only when this replica read it in Redis within the last minute.
func TestReview55AProbingWriteBackResurrectsARecordAnotherReplicaClosed(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	a := New(newRedisStore(t, srv, "rv55:", c.Now, nil), Settings{}, all3, c.Now)
	b := New(newRedisStore(t, srv, "rv55:", c.Now, nil), Settings{}, all3, c.Now)
	a.Report(ctx, epA, Report{Class: "server_error", Count: true, Cool: ScopeEndpoint, CoolFor: time.Minute})
	c.Advance(2 * time.Minute)
	if st := view1(a, epA); st.Phase != Probing {
		t.Fatalf("a sees %+v, want probing", st)
	}
	// b's request probes the endpoint and it answers: b closes the record.
	if st := view1(b, epA); st.Phase != Probing {
		t.Fatalf("b sees %+v, want probing", st)
	}
	b.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond})
	if st := view1(b, epA); st.Phase != Healthy {
		t.Fatalf("after its probe answered b sees %+v, want healthy", st)
	}
	// a serves nothing on this route for an hour (its copy stays probing);
	// then Redis restarts empty.
	c.Advance(time.Hour)
	srv.Kill()
	srv.Start(t)
	_ = view1(a, epA) // a's next request on the route
	if st := view1(b, epA); st.Phase != Healthy {
		t.Errorf("an endpoint b closed an hour ago came back as %+v (phase %v, class %q, failures %d) after Redis restarted empty: a wrote back its stale probing copy", st, st.Phase, st.LastClass, st.Failures)
	}
}
