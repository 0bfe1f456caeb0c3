package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 33d. Replicas share records, not clocks: a replica whose clock runs
// an hour ahead writes a 10-minute cooldown that ends, by every other
// replica's clock, 70 minutes from now; a probe lease of 30 s that holds for
// an hour and a half minute; a cooldown start in the future, after which no
// success can begin. A record bent that way (or by an NTP step, or written
// by hand) kept an endpoint out of every route for as long as the skew.
// Every record read is bounded by the reader's clock and settings
// (docs/behaviour.md, "Health"): a cooldown ends at most its length from
// now, a lease at most ProbeLease from now, a cooldown starts no later than
// now, and no cooldown is longer than the longest one configured.

func TestSkewedReplicaCannotStretchACooldown(t *testing.T) {
	store := NewMemory()
	fast, slow := newClock(), newClock()
	fast.Advance(time.Hour) // this replica's clock is an hour ahead
	a := New(store, Settings{}, all3, fast.Now)
	b := New(store, Settings{}, all3, slow.Now)

	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 10 * time.Minute})
	st := view1(b, epA)
	if st.Phase != Cooling {
		t.Fatalf("the cooldown is not seen: %+v", st)
	}
	if limit := slow.Now().Add(10 * time.Minute); st.Until.After(limit) {
		t.Errorf("a 10-minute cooldown written by a replica an hour ahead ends %v from now", st.Until.Sub(slow.Now()))
	}
	slow.Advance(10*time.Minute + time.Second)
	if st := view1(b, epA); st.Phase != Probing {
		t.Errorf("10 minutes on, the endpoint reads %s until %v: the writer's skew stretched its cooldown", st.Phase, st.Until.Sub(slow.Now()))
	}
}

func TestSkewedReplicaCannotHoldTheProbe(t *testing.T) {
	store := NewMemory()
	fast, slow := newClock(), newClock()
	a := New(store, Settings{}, all3, fast.Now)
	b := New(store, Settings{}, all3, slow.Now)
	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Minute})
	fast.Advance(time.Minute + time.Second)
	slow.Advance(time.Minute + time.Second)

	fast.Advance(time.Hour) // the clock steps an hour ahead, then the probe is taken
	if ok, _ := a.TryProbe(ctx, epA); !ok {
		t.Fatal("the first probe was refused")
	}
	view1(b, epA)                              // every request reads the route's health
	slow.Advance(30*time.Second + time.Second) // the default lease is 30 s
	if ok, _ := b.TryProbe(ctx, epA); !ok {
		t.Errorf("a 30 s probe lease taken by a replica an hour ahead still holds after 31 s")
	}
}

func TestFutureCoolFromStillLetsASuccessClose(t *testing.T) {
	store := NewMemory()
	fast, slow := newClock(), newClock()
	fast.Advance(time.Hour)
	a := New(store, Settings{}, all3, fast.Now)
	b := New(store, Settings{}, all3, slow.Now)
	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	// The endpoint is tried anyway (nothing else serves) and answers, an
	// attempt begun well after the cooldown was written.
	view1(b, epA)
	slow.Advance(time.Minute)
	b.Report(ctx, epA, Report{OK: true, Took: 30 * time.Second})
	if st := view1(b, epA); st.Phase != Healthy {
		t.Errorf("a success begun after the cooldown did not close it (%s): its start was an hour in the future", st.Phase)
	}
}

func TestNoCooldownLongerThanConfigured(t *testing.T) {
	store := NewMemory()
	c := newClock()
	// A record from an earlier configuration (or another replica's): a
	// 30-day cooldown. This one's longest is a day.
	store.put(namesOf(epA).ep, Record{CoolUntil: c.Now().Add(30 * 24 * time.Hour), CoolFrom: c.Now(),
		LastCooldown: 30 * 24 * time.Hour, LastClass: "unavailable"})
	tr := New(store, Settings{Longest: 24 * time.Hour}, all3, c.Now)
	st := view1(tr, epA)
	if st.Phase != Cooling || st.Until.After(c.Now().Add(24*time.Hour)) {
		t.Errorf("a 30-day cooldown under a longest of a day reads %s until %v from now", st.Phase, st.Until.Sub(c.Now()))
	}
	c.Advance(24*time.Hour + time.Second)
	if st := view1(tr, epA); st.Phase != Probing {
		t.Errorf("a day on, the endpoint reads %s (until %v from now)", st.Phase, st.Until.Sub(c.Now()))
	}
	// A failed probe doubles within the longest too.
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	if st := view1(tr, epA); st.Until.After(c.Now().Add(24 * time.Hour)) {
		t.Errorf("a failed probe cools for %v", st.Until.Sub(c.Now()))
	}
}

func TestNonsenseRecordFieldsAreNeutral(t *testing.T) {
	store := NewMemory()
	c := newClock()
	store.put(namesOf(epA).ep, Record{Failures: -5, LatencyEWMA: -time.Second, Samples: 3})
	store.put(namesOf(epB).ep, Record{LatencyEWMA: 800 * time.Millisecond, Samples: 3})
	tr := New(store, Settings{}, all3, c.Now)
	sts := tr.View(ctx, []Key{epA, epB})
	if sts[0].Measured && sts[0].Latency < 0 {
		t.Errorf("a negative latency reads as measured (%v): it would always sort first in a fastest route", sts[0].Latency)
	}
	if sts[0].Failures < 0 {
		t.Errorf("failures read %d", sts[0].Failures)
	}
	// Three failures from -5 must still cool at the threshold.
	for range 3 {
		tr.Report(ctx, epA, fail("server_error"))
	}
	if st := view1(tr, epA); st.Phase != Cooling {
		t.Errorf("three failures in a row over a record holding -5 read %s", st.Phase)
	}
}

// A record holding a cooldown centuries long (hand-written, or from a
// replica whose clock jumped) was written back with keepFor plus the rest
// of it as its expiry: the sum overflowed, and the key was written with no
// expiry at all.
func TestRedisFarFutureRecordKeepsAnExpiry(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	p := uniquePrefix("far")
	rdb := newClient(t, RedisConfig{URL: "redis://" + srv.Addr()})
	key := p + namesOf(epA).ep
	far := `{"cool_until":"2500-01-01T00:00:00Z","cool_from":"2030-01-02T03:04:05Z","last_cooldown":9223372036854775807,"last_class":"unavailable"}`
	if err := rdb.Set(ctx, key, far, 0).Err(); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Settings{{}, {Longest: 24 * time.Hour}} {
		tr := New(newRedisStore(t, srv, p, c.Now, nil), s, all3, c.Now)
		tr.Report(ctx, epA, fail("server_error"))
		ttl, err := rdb.PTTL(ctx, key).Result()
		if err != nil || ttl <= 0 {
			t.Fatalf("longest %v: the record was written back with ttl %v (%v): it never expires", s.Longest, ttl, err)
		}
		if s.Longest > 0 && ttl > keepFor+s.Longest {
			t.Errorf("longest %v: ttl %v", s.Longest, ttl)
		}
		if s.Longest > 0 {
			if st := view1(tr, epA); st.Until.After(c.Now().Add(s.Longest)) {
				t.Errorf("longest %v: cooling until %v from now", s.Longest, st.Until.Sub(c.Now()))
			}
		}
	}
}
