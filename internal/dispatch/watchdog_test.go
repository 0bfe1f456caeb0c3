package dispatch

import (
	"context"
	"testing"
	"time"
)

// watched returns a watchdog over a fresh attempt context, watching the
// deadline of a context that has one in dl (none when dl is 0), and the
// attempt context the watchdog cancels.
func watched(t *testing.T, dl time.Duration) (*watchdog, context.Context) {
	t.Helper()
	actx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	wd := &watchdog{cancel: cancel}
	route := context.Background()
	if dl != 0 {
		var stop context.CancelFunc
		route, stop = context.WithTimeout(context.Background(), dl)
		t.Cleanup(stop)
	}
	wd.watchDeadline(route)
	t.Cleanup(wd.release)
	return wd, actx
}

// canceledWith waits up to within for the attempt to be canceled and
// returns the phase the watchdog names; "" if it was not canceled.
func canceledWith(wd *watchdog, actx context.Context, within time.Duration) Phase {
	select {
	case <-actx.Done():
		return wd.expired()
	case <-time.After(within):
		return ""
	}
}

func TestWatchdogDeadlineBeforeThePhase(t *testing.T) {
	wd, actx := watched(t, 30*time.Millisecond)
	wd.arm(PhaseHeaders, time.Hour)
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseDeadline {
		t.Fatalf("expired %q, want %q", got, PhaseDeadline)
	}
}

func TestWatchdogPhaseBeforeTheDeadline(t *testing.T) {
	wd, actx := watched(t, time.Hour)
	wd.arm(PhaseHeaders, time.Hour)
	wd.arm(PhaseBody, 20*time.Millisecond) // a new phase restarts the clock
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseBody {
		t.Fatalf("expired %q, want %q", got, PhaseBody)
	}
}

func TestWatchdogNoDeadline(t *testing.T) {
	wd, actx := watched(t, 0)
	wd.arm(PhaseFirstToken, 20*time.Millisecond)
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseFirstToken {
		t.Fatalf("expired %q, want %q", got, PhaseFirstToken)
	}
}

// Paused before the commit point, the upstream's clock stops but the
// route's deadline still runs.
func TestWatchdogPauseKeepsTheDeadline(t *testing.T) {
	wd, actx := watched(t, 40*time.Millisecond)
	wd.arm(PhaseFirstToken, time.Hour)
	wd.pause()
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseDeadline {
		t.Fatalf("expired %q, want %q", got, PhaseDeadline)
	}
}

// After the commit point the deadline no longer applies; the phase being
// timed keeps its own timeout, counted from its arm.
func TestWatchdogCommitLiftsTheDeadline(t *testing.T) {
	wd, actx := watched(t, 30*time.Millisecond)
	start := time.Now()
	wd.arm(PhaseIdle, 150*time.Millisecond)
	wd.committed(0)
	if got := canceledWith(wd, actx, 80*time.Millisecond); got != "" {
		t.Fatalf("expired %q after the commit point, before the idle timeout", got)
	}
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseIdle {
		t.Fatalf("expired %q, want %q", got, PhaseIdle)
	}
	if el := time.Since(start); el < 150*time.Millisecond {
		t.Fatalf("idle timeout fired after %v, before its 150ms", el)
	}
}

func TestWatchdogPausedAfterCommitNeverFires(t *testing.T) {
	wd, actx := watched(t, 20*time.Millisecond)
	wd.arm(PhaseFirstToken, 20*time.Millisecond)
	wd.pause()
	wd.committed(0)
	if got := canceledWith(wd, actx, 100*time.Millisecond); got != "" {
		t.Fatalf("expired %q while paused after the commit point", got)
	}
	wd.arm(PhaseIdle, 20*time.Millisecond)
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseIdle {
		t.Fatalf("expired %q, want %q", got, PhaseIdle)
	}
}

func TestWatchdogMaxStreamDuration(t *testing.T) {
	wd, actx := watched(t, time.Hour)
	wd.arm(PhaseFirstToken, time.Hour)
	wd.pause()
	wd.committed(30 * time.Millisecond)
	wd.arm(PhaseIdle, time.Hour)
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseMaxStreamDuration {
		t.Fatalf("expired %q, want %q", got, PhaseMaxStreamDuration)
	}
}

func TestWatchdogReleaseStopsEveryClock(t *testing.T) {
	wd, actx := watched(t, 20*time.Millisecond)
	wd.arm(PhaseHeaders, 20*time.Millisecond)
	wd.release()
	if got := canceledWith(wd, actx, 100*time.Millisecond); got != "" {
		t.Fatalf("expired %q after release", got)
	}
}

func TestWatchdogDeadlineAlreadyPassed(t *testing.T) {
	route, stop := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer stop()
	actx, cancel := context.WithCancel(context.Background())
	defer cancel()
	wd := &watchdog{cancel: cancel}
	wd.watchDeadline(route)
	defer wd.release()
	wd.arm(PhaseHeaders, time.Hour)
	if got := canceledWith(wd, actx, 5*time.Second); got != PhaseDeadline {
		t.Fatalf("expired %q, want %q", got, PhaseDeadline)
	}
}
