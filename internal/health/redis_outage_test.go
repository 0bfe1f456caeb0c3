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
		if n := l.Count("level=WARN"); n != 1 {
			t.Fatalf("outage logged %d times, want once:\n%s", n, l.String())
		}
	}

	srv.Start(t) // same port, empty
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
		if n := l.Count("resumed sharing"); n != 1 || l.Count("level=WARN") != 1 {
			t.Fatalf("want one warning and one resume:\n%s", l.String())
		}
	}
}

// TestRedisReconcile: replica A is cut off from Redis (B is not). While cut
// off, A learns a model is gone, an account is capped and a short rate
// limit; B meanwhile learns a longer cooldown for that same endpoint. When
// A reaches Redis again it writes back what it learned: B then skips the
// gone model and the capped account without having seen them fail, and
// B's longer cooldown is not shortened.
func TestRedisReconcile(t *testing.T) {
	srv := redistest.Start(t)
	cut := redistest.StartProxy(t, srv.Addr())
	c := newClock()
	var logA logBuf
	sa := newStore(t, RedisConfig{URL: cut.URL()}, "rec:", c.Now, &logA)
	a := New(sa, Settings{}, all3, c.Now)
	b := New(newRedisStore(t, srv, "rec:", c.Now, nil), Settings{}, all3, c.Now)
	view1(a, epA) // A has talked to Redis through the proxy

	cut.Cut()
	gone := c.Now().Add(24 * time.Hour)
	a.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	capped := c.Now().Add(time.Hour)
	a.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
	a.Report(ctx, epB, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: time.Minute})
	longer := c.Now().Add(2 * time.Hour)
	b.Report(ctx, epB, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 2 * time.Hour})
	if sa.Shared() {
		t.Fatal("A still claims to share state while cut off")
	}
	if st := view1(b, epA); st.Phase != Healthy {
		t.Fatalf("B cannot know what A learned while cut off: %+v", st)
	}

	cut.Heal()
	c.Advance(retryEvery)
	view1(a, epA) // A's first operation once Redis is due for a retry
	if !sa.Shared() || len(sa.Journaled()) != 0 {
		t.Fatalf("A after Redis returned: shared %v, journal %v; want shared and an empty journal", sa.Shared(), sa.Journaled())
	}
	if st := view1(b, epA); st.Phase != Cooling || !st.Until.Equal(gone) || st.LastClass != "unavailable" {
		t.Fatalf("B sees the model A found gone as %+v, want cooling until %v, unavailable", st, gone)
	}
	if st := view1(b, epC); st.Phase != Cooling || !st.Until.Equal(capped) || st.LastClass != "quota" {
		t.Fatalf("B sees the account A found capped as %+v, want cooling until %v, quota", st, capped)
	}
	if st := view1(b, epB); st.Phase != Cooling || !st.Until.Equal(longer) || st.LastClass != "unavailable" {
		t.Fatalf("B's longer cooldown became %+v, want it kept until %v (never shortened)", st, longer)
	}
	// A announced the change when it learned it; B does not announce it again.
	if tr := b.Report(ctx, epA, fail("server_error")); len(tr) != 0 {
		t.Fatalf("B re-announced what A learned: %+v", tr)
	}
	if n, m := logA.Count("wrote back"), logA.Count("resumed sharing"); n != 1 || m != 1 {
		t.Fatalf("A logged the write-back %d times and the resume %d times, want once each:\n%s", n, m, logA.String())
	}
}

// TestRedisFailover kills the Redis node holding an account's keys under
// two replicas, on a Redis Cluster (a master killed, then restarted) and
// behind Sentinel (the primary killed, the replica promoted). Both replicas
// keep answering on local state; once Redis is whole again they share
// again, what was shared before is still there, and what A learned in
// between reaches B.
func TestRedisFailover(t *testing.T) {
	cases := []struct {
		name string
		// start runs the deployment and returns how to reach it, a kill of
		// the node serving key, and a heal that waits until Redis is whole.
		start func(t *testing.T, key string) (rc RedisConfig, kill, heal func())
	}{
		{"cluster", func(t *testing.T, key string) (RedisConfig, func(), func()) {
			cl := redistest.StartCluster(t, 3)
			var m *redistest.Server
			return RedisConfig{Cluster: cl.URLs()},
				func() { m = cl.MasterOf(t, key); m.Kill() },
				func() { m.Start(t); cl.WaitHealthy(t) }
		}},
		{"sentinel", func(t *testing.T, key string) (RedisConfig, func(), func()) {
			st := redistest.StartSentinel(t)
			return RedisConfig{SentinelMaster: redistest.MasterName, Sentinels: st.URLs()},
				func() { st.WaitReplicated(t); st.Primary.Kill() },
				func() { st.WaitPromoted(t) }
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rc, kill, heal := tc.start(t, "fo:{anthropic}:ep:claude")
			c := newClock()
			sa, sb := newStore(t, rc, "fo:", c.Now, nil), newStore(t, rc, "fo:", c.Now, nil)
			a, b := New(sa, Settings{}, all3, c.Now), New(sb, Settings{}, all3, c.Now)
			a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
			if st := view1(b, epA); st.Phase != Cooling {
				t.Fatalf("B before the kill: %+v", st)
			}

			kill()
			a.Report(ctx, epB, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
			for _, tr := range []*Tracker{a, b} { // both keep answering
				if st := tr.View(ctx, all3); st[0].Phase != Cooling {
					t.Fatalf("a replica lost what it knew while Redis is failing over: %+v", st)
				}
			}
			heal()
			deadline := time.Now().Add(20 * time.Second)
			for {
				c.Advance(retryEvery) // each store may try Redis again
				a.View(ctx, all3)
				st := b.View(ctx, all3)
				if sa.Shared() && sb.Shared() && st[0].Phase == Cooling && st[1].Phase == Cooling {
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("after the heal: A shared %v, B shared %v, B sees %+v; want both shared and both endpoints cooling",
						sa.Shared(), sb.Shared(), st)
				}
				time.Sleep(50 * time.Millisecond)
			}
			// Sharing goes on: what B learns now, A sees.
			b.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
			if st := view1(a, epC); st.Phase != Cooling {
				t.Fatalf("A after the heal does not see B's report: %+v", st)
			}
		})
	}
}
