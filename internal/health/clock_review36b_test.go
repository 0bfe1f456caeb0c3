package health

import (
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 36b. SetClock "takes it for the shared one ... until SyncClock";
// but SyncClock leaves redisClock.given set, and ClockShared returns true on
// given before it looks at the measurement. Every test store is made with
// SetClock (newStore) and then SyncClock: after a step of its clock it still
// counts its clock as shared, so no test can see the state the step
// detection of 8f59f71 puts a store in (unshared until measured again) —
// TestReview36aAClockSteppedBackIsMeasuredAgain's "shared: %v" is always
// true — and a tracker over it keeps bounding records by a clock that
// moved an hour.
func TestReview36bSyncClockEndsTheGivenClock(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	s := newRedisStore(t, srv, uniquePrefix("given36b"), c.Now, nil)
	if err := s.SyncClock(ctx); err != nil {
		t.Fatal(err)
	}
	before := s.Now()
	c.Advance(-time.Hour) // the host's clock stepped back, before Redis is measured again
	// Asked before Now, which starts the measurement the step calls for
	// (once it lands, the clock is shared again, and right).
	shared := s.ClockShared()
	if d := before.Sub(s.Now()); d > clockSlack && shared {
		t.Errorf("after SyncClock and a step back of an hour, Now moved %v and ClockShared still reports true (redisClock.given is never cleared)", d.Round(time.Second))
	}
}

// Review 36b. Now reads the local clock, then loads the last reading; a
// measurement that lands between the two (its middle after the local
// reading) makes since see the local clock "back before" the reading, and
// Now flags a step that never happened: the reading is marked stepped and a
// new TIME is sent at once, though one was just made.
func TestReview36bAMeasurementLandingDuringNowIsNoStep(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	var hook atomic.Pointer[func()]
	now := func() time.Time {
		v := c.Now()
		if h := hook.Swap(nil); h != nil {
			(*h)() // what another goroutine does while this one is descheduled
		}
		return v
	}
	s := newRedisStore(t, srv, uniquePrefix("race36b"), now, nil)
	if err := s.SyncClock(ctx); err != nil {
		t.Fatal(err)
	}
	timeCalls := func() int {
		info, err := srv.Client(t).Info(ctx, "commandstats").Result()
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(info, "\n") {
			if rest, ok := strings.CutPrefix(l, "cmdstat_time:calls="); ok {
				n, _ := strconv.Atoi(rest[:strings.IndexByte(rest, ',')])
				return n
			}
		}
		return 0
	}
	// The background measurement, due and run by another request's Now,
	// completes while this Now is between its clock and its load.
	h := func() {
		c.Advance(10 * time.Millisecond)
		if err := s.measureClock(ctx); err != nil {
			t.Error(err)
		}
	}
	hook.Store(&h)
	n0 := timeCalls()
	s.Now()
	time.Sleep(200 * time.Millisecond) // a measurement Now started in the background
	// One TIME is the measurement the hook made; any other is one Now
	// started because it took that fresh measurement for a step.
	if n := timeCalls() - n0 - 1; n > 0 {
		t.Errorf("a measurement made 10 ms after Now read its clock was taken for a step: %d more TIME sent at once, a minute early", n)
	}
}
