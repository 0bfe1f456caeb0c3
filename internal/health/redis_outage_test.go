package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// TestRedisOutage kills Redis under two replicas, checks both keep working on
// local state (logging the outage once), restarts Redis on the same port and
// checks sharing resumes (logged once).
func TestRedisOutage(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	var logA, logB logBuf
	sa := newRedisStore(t, srv, "out:", c.Now, &logA)
	sb := newRedisStore(t, srv, "out:", c.Now, &logB)
	a := New(sa, Settings{}, all3, c.Now)
	b := New(sb, Settings{}, all3, c.Now)

	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	if st := view1(b, epA); st.Phase != Cooling { // b reads it from Redis, and mirrors it
		t.Fatalf("b sees %+v", st)
	}

	srv.Kill()
	for range 5 { // many calls, one warning each
		if st := view1(b, epA); st.Phase != Cooling {
			t.Fatalf("b lost its mirrored state: %+v", st)
		}
		a.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
	}
	if !sa.Claim(ctx, "quota/openai", time.Hour) || sa.Claim(ctx, "quota/openai", time.Hour) {
		t.Fatal("Once during the outage: want the first local claim to win and the second to lose")
	}
	if sa.Shared() || sb.Shared() {
		t.Fatal("stores still claim to be shared with Redis down")
	}
	if st := view1(a, epC); st.Phase != Cooling {
		t.Fatalf("a lost its own local report: %+v", st)
	}
	if st := view1(b, epC); st.Phase != Healthy {
		t.Fatalf("b cannot know a's report while Redis is down: %+v", st)
	}
	if ok, _ := b.TryProbe(ctx, epB); !ok {
		t.Fatal("TryProbe on a healthy endpoint must allow during the outage")
	}
	for _, l := range []*logBuf{&logA, &logB} {
		if n := l.count("level=WARN"); n != 1 {
			t.Fatalf("outage logged %d times, want once:\n%s", n, l.b.String())
		}
	}

	srv.Start() // same port, empty
	view1(a, epA)
	if sa.Shared() {
		t.Fatal("retried Redis before the back-off passed")
	}
	c.Advance(retryEvery)
	a.Report(ctx, epB, Report{Class: "timeout", Cool: ScopeEndpoint, CoolFor: time.Minute})
	view1(b, epA)
	if !sa.Shared() || !sb.Shared() {
		t.Fatal("sharing did not resume")
	}
	if st := view1(b, epB); st.Phase != Cooling {
		t.Fatalf("b does not see a's report after Redis came back: %+v", st)
	}
	for range 3 {
		view1(a, epB)
	}
	for _, l := range []*logBuf{&logA, &logB} {
		if n := l.count("resumed sharing"); n != 1 || l.count("level=WARN") != 1 {
			t.Fatalf("want one warning and one resume:\n%s", l.b.String())
		}
	}
}
