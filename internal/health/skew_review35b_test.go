package health

import (
	"log/slog"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 35b. Review 33d bounded every record by the reader's clock and
// wrote the bound back. A replica whose clock runs BEHIND the others then
// rewrote every fresh cooldown and probe lease the accurate replicas wrote
// to end up to its skew early, for everyone: a replica an hour behind
// erased every cooldown under an hour, fleet-wide, on its first read, and
// freed every probe lease. No reader can tell a writer ahead from itself
// behind, so replicas over Redis now read Redis's clock (clock.go), and a
// replica that has not measured it yet bounds nothing by the clock.

// skewedStores are two stores over srv under one prefix whose local
// clocks are an hour apart (base, and an hour behind it), each synced to
// Redis's clock.
func skewedStores(t *testing.T, srv *redistest.Server, base *clock) (accurate, behind *RedisStore) {
	t.Helper()
	p := uniquePrefix("skew35b")
	accurate = newRedisStore(t, srv, p, base.Now, nil)
	behind = newRedisStore(t, srv, p, func() time.Time { return base.Now().Add(-time.Hour) }, nil)
	for _, s := range []*RedisStore{accurate, behind} {
		if err := s.SyncClock(ctx); err != nil {
			t.Fatal(err)
		}
	}
	return accurate, behind
}

func TestReplicasOverRedisReadOneClock(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	sa, sb := skewedStores(t, srv, c)
	if d := sa.Now().Sub(sb.Now()); d < -time.Second || d > time.Second {
		t.Fatalf("two replicas an hour apart read Redis's clock %v apart", d)
	}
	if !sa.ClockShared() || !sb.ClockShared() {
		t.Fatal("a measured clock does not count as shared")
	}
	a, b := New(sa, Settings{}, all3, nil), New(sb, Settings{}, all3, nil)

	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 10 * time.Minute})
	view1(b, epA) // one request on the replica an hour behind reads the route
	c.Advance(time.Second)
	if st := view1(a, epA); st.Phase != Cooling || st.Until.Sub(sa.Now()) < 9*time.Minute {
		t.Errorf("1 s into a 10-minute cooldown, after a read on the replica an hour behind: %s until %v from now", st.Phase, st.Until.Sub(sa.Now()))
	}
	if st := view1(b, epA); st.Phase != Cooling {
		t.Errorf("the replica an hour behind reads the cooldown as %s", st.Phase)
	}
}

func TestAReplicaBehindLeavesAProbeLeaseHeld(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	sa, sb := skewedStores(t, srv, c)
	a, b := New(sa, Settings{}, all3, nil), New(sb, Settings{}, all3, nil)
	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Minute})
	c.Advance(time.Minute + time.Second)
	if ok, _ := a.TryProbe(ctx, epA); !ok {
		t.Fatal("first probe refused")
	}
	view1(b, epA)
	if ok, _ := b.TryProbe(ctx, epA); ok {
		t.Error("the replica an hour behind won a probe 0 s into another's 30 s lease")
	}
}

// A replica that has not measured Redis's clock (a fresh store, or a Redis
// that does not answer TIME) takes records as written: reading with a
// clock an hour behind, it writes nothing back.
func TestAnUnmeasuredClockBoundsNothing(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	p := uniquePrefix("unmeasured35b")
	sa := newRedisStore(t, srv, p, c.Now, nil)
	sb := NewRedis(sa.client, p, nil) // its clock not set, not yet measured
	a := New(sa, Settings{}, all3, nil)
	behind := func() time.Time { return c.Now().Add(-time.Hour) }
	b := New(sb, Settings{}, all3, behind) // a clock of its own: Redis's is never read
	if sb.ClockShared() {
		t.Fatal("an unmeasured clock counts as shared")
	}
	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 10 * time.Minute})
	view1(b, epA)
	c.Advance(time.Second)
	if st := view1(a, epA); st.Phase != Cooling || st.Until.Sub(c.Now()) < 9*time.Minute {
		t.Errorf("after a read by a replica an hour behind whose clock is its own: %s until %v from now", st.Phase, st.Until.Sub(c.Now()))
	}
}

// A reload that lengthens a cooldown (account_cooldown 1h -> 24h): the
// previous configuration's tracker still serves the requests in flight (a
// stream begun before the reload), and one success report there read the
// account and cut the new configuration's 24h account cooldown to its own
// longest, for every replica. Every generation now bounds by the served
// configuration's longest (Retirements.Serve).
func TestAnOlderConfigurationDoesNotCutALongerCooldown(t *testing.T) {
	store := NewMemory()
	c := newClock()
	var ret Retirements
	old := New(store, Settings{Longest: time.Hour}, all3, c.Now) // before the reload
	old.Generation(&ret, 1)
	ret.Serve(time.Hour)
	next := New(store, Settings{Longest: 24 * time.Hour}, all3, c.Now) // after it
	next.Generation(&ret, 2)
	ret.Serve(24 * time.Hour)

	next.Report(ctx, epB, Report{Class: "quota", Cool: ScopeAccount, CoolFor: 24 * time.Hour})
	old.Report(ctx, epA, Report{OK: true, Took: time.Minute}) // an in-flight request of the old configuration ends
	old.Report(ctx, epB, Report{Class: "server_error", Count: true})
	if st := view1(next, epB); st.Until.Before(c.Now().Add(23 * time.Hour)) {
		t.Errorf("a 24h account cooldown started after the reload reads %v left: the old configuration cut it", st.Until.Sub(c.Now()))
	}
	// And a reload that shortens it still shortens the running one.
	ret.Serve(time.Hour)
	if st := view1(next, epB); st.Until.After(c.Now().Add(time.Hour)) {
		t.Errorf("after a reload to a 1h longest the cooldown reads %v left", st.Until.Sub(c.Now()))
	}
}

// The journal's write-back (mergeCooldown) ignored Def: a cooldown learned
// by one definition while Redis was unreachable was written back with no
// digest (Redis came back empty), so every definition honoured it — the
// old model's 24h "gone" held back the corrected one.
func TestJournalWriteBackKeepsTheDefinition(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	p := uniquePrefix("def35b")
	sa := newRedisStore(t, srv, p, c.Now, nil)
	sb := newRedisStore(t, srv, p, c.Now, nil)
	oldDef, newDef := Digest("endpoint", "model-a"), Digest("endpoint", "model-a2")
	old := New(sa, Settings{}, all3, c.Now)
	old.Define(map[Key]string{epA: oldDef}, nil)
	next := New(sb, Settings{}, all3, c.Now)
	next.Define(map[Key]string{epA: newDef}, nil)

	view1(old, epA)
	srv.Kill()
	// The old model is gone: learned locally, journaled.
	old.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	srv.Start(t) // same port, empty
	c.Advance(retryEvery)
	view1(old, epA) // reconcile
	view1(next, epA)
	if st := view1(next, epA); st.Phase != Healthy {
		t.Errorf("the new model reads the old model's 24h verdict after the journal write-back: %s %s", st.Phase, st.LastClass)
	}
	if st := view1(old, epA); st.Phase != Cooling {
		t.Errorf("the old model's own replica lost its verdict: %s", st.Phase)
	}
}

// A Redis whose ACL refuses TIME leaves the clock unshared, says so once,
// and the store still shares records.
func TestARefusedTimeLeavesTheClockUnshared(t *testing.T) {
	srv := redistest.Start(t)
	admin := newClient(t, RedisConfig{URL: srv.URL()})
	if err := admin.Do(ctx, "ACL", "SETUSER", "notime", "on", ">pw", "~*", "&*", "+@all", "-time").Err(); err != nil {
		t.Fatal(err)
	}
	var log logBuf
	s := NewRedis(newClient(t, RedisConfig{URL: srv.URL(), Username: "notime", Password: "pw", Timeout: testTimeout}),
		uniquePrefix("notime"), slog.New(slog.NewTextHandler(&log, nil))) // the production clock: measured
	for range 2 {
		if err := s.SyncClock(ctx); err == nil {
			t.Fatal("TIME answered through an ACL that refuses it")
		}
	}
	if s.ClockShared() {
		t.Error("a clock Redis would not tell counts as shared")
	}
	if log.Count("refused TIME") != 1 {
		t.Errorf("want the refusal logged once:\n%s", log.String())
	}
	tr := New(s, Settings{}, all3, nil)
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	other := NewRedis(admin, s.prefix, nil) // another replica, whose TIME is answered
	if st := view1(New(other, Settings{}, all3, nil), epA); st.Phase != Cooling || !s.Shared() {
		t.Errorf("records are not shared without TIME: %+v", st)
	}
}
