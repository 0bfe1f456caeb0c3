package dispatch

import (
	"context"
	"sync"
	"time"
)

// watchdog cancels an attempt when its current phase (headers, first token,
// idle gap) outlasts its timeout, or when one of the request's own limits
// passes (the route's deadline until the commit point, max_stream_duration
// after it), and remembers which it was. One timer runs until the commit
// point, at the earlier of the phase's end and the route's deadline, so
// watching the deadline costs an attempt no context of its own
// (docs/benchmarks.md, "Round 5").
type watchdog struct {
	mu     sync.Mutex
	t      *time.Timer
	timing Phase     // what t reports when it fires: the phase, or PhaseDeadline
	due    time.Time // when t is due; zero while it is stopped
	fired  Phase
	cancel context.CancelFunc
	// deadline is the route's (the attempt context's), watched until the
	// commit point; zero when there is none or the commit point passed.
	// route is the context it is the deadline of.
	deadline time.Time
	route    context.Context
	// phase and phaseEnd are the phase being timed and when its timeout
	// passes, while a deadline is watched; phase is "" while paused.
	phase    Phase
	phaseEnd time.Time
	// left is what remained of the phase's time when the clock was last
	// paused: resume times the phase for that long.
	left   time.Duration
	maxDur *time.Timer // max_stream_duration, from the commit point
	// pausedAt is when the clock was paused after the commit point (the
	// relay writing to the client), zero while it runs; heldLast is when
	// the last pause of heldLimit or more ended (heldBack).
	pausedAt, heldLast time.Time
	// pausedBytes is what the relay wrote to the client during the pause
	// (wrote): a hold is a slow client's only when little went through.
	// Touched by the relay's goroutine alone.
	pausedBytes int64
}

// A client that reads slowly keeps the relay from reading the upstream,
// and an upstream's front closes a connection whose reader does not read
// (nginx's send_timeout): the cut that follows is the client's. It comes
// during such a hold, found when the relay reads again, or right after it
// once the relay has relayed what was buffered. heldBack says so when one
// write to the client (one pause) took heldLimit or more, at under
// heldRate, and ended within heldRecent of the end: neither many short
// writes (a reader that is merely not the fastest, large events) nor a
// hold long before the end (the relay read normally since) excuses the
// upstream (hostile 52b).
const (
	heldLimit  = time.Second
	heldRecent = 2 * time.Second
	// heldRate is the pace below which a long write is a client that
	// does not read: one that reads, even over a slow mobile link, takes
	// a large event at hundreds of KiB a second (hostile 52c: one 12 MiB
	// event written at 2 MB/s excused the upstream's cut after it).
	heldRate = 64 << 10 // bytes a second
)

// heldBack reports whether the client held the relay back just before now
// (see heldLimit).
func (wd *watchdog) heldBack() bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return !wd.heldLast.IsZero() && time.Since(wd.heldLast) <= heldRecent
}

// held notes a pause that ended at now, with wd.mu held.
func (wd *watchdog) held(now time.Time) {
	if d := now.Sub(wd.pausedAt); !wd.pausedAt.IsZero() && d >= heldLimit && float64(wd.pausedBytes) < heldRate*d.Seconds() {
		wd.heldLast = now
	}
	wd.pausedAt, wd.pausedBytes = time.Time{}, 0
}

// wrote counts n bytes the relay wrote to the client while the clock is
// paused.
func (wd *watchdog) wrote(n int) { wd.pausedBytes += int64(n) }

// Phase names what an attempt was waiting for when a clock ran out; the
// decision record's evidence is "timeout:" + the phase. "" is none.
type Phase string

// The upstream's timeouts (a provider's timeout, first_token_timeout and
// idle_timeout, docs/config.md).
const (
	PhaseHeaders    Phase = "headers"     // the response headers
	PhaseBody       Phase = "body"        // the rest of a non-stream answer
	PhaseFirstToken Phase = "first_token" // a stream's first content
	PhaseIdle       Phase = "idle"        // the next chunk of a stream
)

// Phases named after the request's own limits rather than the upstream's
// timeouts: their expiry is nobody's fault.
const (
	PhaseDeadline          Phase = "deadline"
	PhaseMaxStreamDuration Phase = "max_stream_duration"
)

// watchDeadline cancels the attempt when ctx's deadline (the route's)
// passes, until committed is called. The clock starts with the first arm,
// which the attempt makes before it waits on anything.
func (wd *watchdog) watchDeadline(ctx context.Context) {
	dl, ok := ctx.Deadline()
	if !ok {
		return
	}
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.deadline, wd.route = dl, ctx
}

// schedule sets the timer, with wd.mu held, while a deadline is watched:
// to the earlier of the phase's end and the deadline (the deadline on a
// tie), or to the deadline alone while no phase is timed.
func (wd *watchdog) schedule(now time.Time) {
	at, what := wd.deadline, PhaseDeadline
	if wd.phase != "" && wd.phaseEnd.Before(at) {
		at, what = wd.phaseEnd, wd.phase
	}
	wd.timing = what
	wd.reset(at.Sub(now))
}

// reset starts or restarts the timer to fire in d, with wd.mu held.
func (wd *watchdog) reset(d time.Duration) { wd.resetAt(time.Now(), d) }

// resetAt is reset at now.
func (wd *watchdog) resetAt(now time.Time, d time.Duration) {
	wd.due = now.Add(d)
	if wd.t == nil {
		wd.t = time.AfterFunc(d, wd.fire)
		return
	}
	wd.t.Reset(d)
}

// committed marks the commit point: the route's deadline no longer applies
// (failover is over; a healthy long answer must not be cut by it), and
// max, when positive, bounds the rest of the stream.
func (wd *watchdog) committed(max time.Duration) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if !wd.deadline.IsZero() {
		wd.deadline = time.Time{}
		if wd.phase != "" { // the phase alone is timed now
			wd.timing = wd.phase
			wd.reset(time.Until(wd.phaseEnd))
		} else {
			wd.stop()
		}
		wd.phase = ""
	}
	if max > 0 {
		wd.maxDur = time.AfterFunc(max, func() { wd.expire(PhaseMaxStreamDuration) })
	}
}

// expire cancels the attempt because of phase, unless another expiry came
// first.
func (wd *watchdog) expire(phase Phase) {
	wd.mu.Lock()
	if wd.fired == "" {
		wd.fired = phase
	}
	wd.mu.Unlock()
	wd.cancel()
}

// arm times phase from now: the attempt is canceled unless the next arm,
// pause or release comes within d.
func (wd *watchdog) arm(phase Phase, d time.Duration) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.armLocked(phase, d)
}

// resume times phase again for what was left of its time when the clock
// was paused, so that waits which brought no progress add up (a stream's
// keep-alives do not restart its idle clock). Time already spent is spent:
// a clock paused at its end fires at once.
func (wd *watchdog) resume(phase Phase) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.armLocked(phase, max(wd.left, 0))
}

// armLocked is arm with wd.mu held.
func (wd *watchdog) armLocked(phase Phase, d time.Duration) {
	wd.left = d
	now := time.Now()
	if wd.deadline.IsZero() {
		wd.held(now)
		wd.timing = phase
		wd.resetAt(now, d)
		return
	}
	wd.phase, wd.phaseEnd = phase, now.Add(d)
	wd.schedule(now)
}

func (wd *watchdog) fire() {
	wd.mu.Lock()
	if wd.due.IsZero() || time.Now().Before(wd.due) {
		// A late run of a firing that was stopped or moved since (a timer
		// never fires early): timing now says what the next firing is
		// for, not this one, which must not be read as it.
		wd.mu.Unlock()
		return
	}
	phase, route := wd.timing, wd.route
	wd.mu.Unlock()
	if phase == PhaseDeadline {
		// The route's context expires at the same instant, on a timer of
		// its own: the attempt ends once it has, so that whoever reads the
		// walk's context after the attempt finds the deadline passed, as
		// when the watch was an AfterFunc on that context.
		<-route.Done()
		if wd.lifted() {
			return
		}
	}
	wd.expire(phase)
}

// lifted reports whether the deadline no longer applies: the commit point
// or the end of the attempt came while fire waited for it.
func (wd *watchdog) lifted() bool {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.deadline.IsZero()
}

// pause stops the clock until the next arm; the route's deadline, until
// the commit point, still runs.
func (wd *watchdog) pause() {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	now := time.Now()
	if wd.deadline.IsZero() {
		if !wd.due.IsZero() {
			wd.left = wd.due.Sub(now)
		}
		wd.pausedAt = now
		wd.stop()
		return
	}
	if wd.phase != "" {
		wd.left = wd.phaseEnd.Sub(now)
	}
	wd.phase = ""
	wd.schedule(now)
}

// release stops every clock for good, at the end of the attempt.
func (wd *watchdog) release() {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.deadline, wd.phase = time.Time{}, ""
	wd.stop()
	if wd.maxDur != nil {
		wd.maxDur.Stop()
	}
}

// stop stops the timer, with wd.mu held.
func (wd *watchdog) stop() {
	wd.due = time.Time{}
	if wd.t != nil {
		wd.t.Stop()
	}
}

// expired returns the phase whose timeout fired, or "".
func (wd *watchdog) expired() Phase {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.fired
}
