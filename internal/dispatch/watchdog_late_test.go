package dispatch

import (
	"testing"
	"time"
)

// TestDeadlineLateFireIsNotReadAsTheNextPhase: the route's deadline
// passes just as a stream's first content arrives. The watchdog's one
// timer has fired for the deadline, but its goroutine gets the lock only
// after the relay has gone through the commit point (pause, committed)
// and armed the idle clock. fire then reads wd.timing, which now says
// "idle", and cancels a healthy committed stream as an idle timeout (the
// upstream's fault: counted against the endpoint), although no idle
// timeout passed and the deadline no longer applies. Before the change the
// deadline was an AfterFunc of its own that could only ever say
// "deadline".
func TestDeadlineLateFireIsNotReadAsTheNextPhase(t *testing.T) {
	const trials = 40
	idle := 0
	for range trials {
		wd, actx := watched(t, 5*time.Millisecond)
		wd.arm(PhaseFirstToken, time.Hour)
		wd.mu.Lock() // the timer's goroutine is late to the lock
		time.Sleep(15 * time.Millisecond)
		wd.mu.Unlock()
		// The first content: the relay's commit point, then the idle clock
		// (stream.go).
		wd.pause()
		wd.committed(0)
		wd.arm(PhaseIdle, time.Hour)
		if got := canceledWith(wd, actx, 30*time.Millisecond); got == PhaseIdle {
			idle++
		}
		wd.release()
	}
	if idle > 0 {
		t.Fatalf("%d of %d committed streams were canceled as an idle timeout by the deadline's late timer (an hour-long idle timeout)", idle, trials)
	}
}
