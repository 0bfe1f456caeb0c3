package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 36a. The offset to Redis's clock is measured "at the first request
// and once a minute after" (docs/scale.md, "One clock"); the next
// measurement is scheduled on the host's wall clock (redisClock.next, local
// unix ns). A host whose clock is stepped back (NTP correcting a VM that
// ran an hour ahead, a resumed snapshot) then measures nothing until its
// wall clock catches up with the old schedule: for the size of the step
// plus a minute it reads Redis's clock as the step behind, while counting
// it as shared, so it bounds every record it reads by a clock an hour
// behind and writes the bound back — the review 35b failure (every
// cooldown under an hour cut short, fleet-wide), by another route.

func TestReview36aAClockSteppedBackIsMeasuredAgain(t *testing.T) {
	srv := redistest.Start(t)
	p := uniquePrefix("step36a")
	ca := newClock()                           // the accurate replica's host clock
	cb := testClockAt(ca.Now().Add(time.Hour)) // a host an hour ahead ...
	sa := newRedisStore(t, srv, p, ca.Now, nil)
	sb := newRedisStore(t, srv, p, cb.Now, nil)
	for _, s := range []*RedisStore{sa, sb} {
		if err := s.SyncClock(ctx); err != nil { // production: measured at the first Now
			t.Fatal(err)
		}
	}
	a, b := New(sa, Settings{}, all3, nil), New(sb, Settings{}, all3, nil)

	cb.Advance(-time.Hour) // ... that NTP steps back to the right time
	// Two minutes pass on both hosts: the measurement once a minute is due.
	ca.Advance(2 * time.Minute)
	cb.Advance(2 * time.Minute)
	skew := func() time.Duration { return sb.Now().Sub(sa.Now()) }
	for deadline := time.Now().Add(3 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		d := skew() // each Now starts a measurement that is due, in the background
		if d > -clockSlack && d < clockSlack {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("two minutes after its host clock was stepped back an hour, a replica reads Redis's clock %v off the other's (shared: %v)", d.Round(time.Second), sb.ClockShared())
			break
		}
	}

	// What the fleet relies on: a 10-minute cooldown one replica starts
	// survives a read by the other.
	a.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 10 * time.Minute})
	view1(b, epA)
	if st := view1(a, epA); st.Phase != Cooling || st.Until.Sub(sa.Now()) < 9*time.Minute {
		t.Errorf("a 10-minute cooldown, after one read on the replica whose clock was stepped back: %s (until %v, now %v): the fleet lost it", st.Phase, st.Until, sa.Now())
	}
}

func testClockAt(t0 time.Time) *clock { c := newClock(); c.Set(t0); return c }
