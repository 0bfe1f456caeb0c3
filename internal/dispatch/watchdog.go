package dispatch

import (
	"context"
	"errors"
	"sync"
	"time"
)

// watchdog cancels an attempt when its current phase (headers, first token,
// idle gap) outlasts its timeout, or when one of the request's own limits
// passes (the route's deadline until the commit point, max_stream_duration
// after it), and remembers which it was.
type watchdog struct {
	mu       sync.Mutex
	t        *time.Timer
	phase    Phase
	fired    Phase
	cancel   context.CancelFunc
	deadline func() bool // stops watching the route's deadline
	maxDur   *time.Timer // max_stream_duration, from the commit point
}

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
// passes, until committed is called.
func (wd *watchdog) watchDeadline(ctx context.Context) {
	wd.deadline = context.AfterFunc(ctx, func() {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			wd.expire(PhaseDeadline)
		}
	})
}

// committed marks the commit point: the route's deadline no longer applies
// (failover is over; a healthy long answer must not be cut by it), and
// max, when positive, bounds the rest of the stream.
func (wd *watchdog) committed(max time.Duration) {
	if wd.deadline != nil {
		wd.deadline()
	}
	if max > 0 {
		wd.mu.Lock()
		wd.maxDur = time.AfterFunc(max, func() { wd.expire(PhaseMaxStreamDuration) })
		wd.mu.Unlock()
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

func (wd *watchdog) arm(phase Phase, d time.Duration) {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	wd.phase = phase
	if wd.t == nil {
		wd.t = time.AfterFunc(d, wd.fire)
		return
	}
	wd.t.Reset(d)
}

func (wd *watchdog) fire() {
	wd.mu.Lock()
	phase := wd.phase
	wd.mu.Unlock()
	wd.expire(phase)
}

// pause stops the clock until the next arm.
func (wd *watchdog) pause() { wd.stop() }

func (wd *watchdog) stop() {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.t != nil {
		wd.t.Stop()
	}
}

// release stops every clock for good, at the end of the attempt.
func (wd *watchdog) release() {
	wd.stop()
	if wd.deadline != nil {
		wd.deadline()
	}
	wd.mu.Lock()
	defer wd.mu.Unlock()
	if wd.maxDur != nil {
		wd.maxDur.Stop()
	}
}

// expired returns the phase whose timeout fired, or "".
func (wd *watchdog) expired() Phase {
	wd.mu.Lock()
	defer wd.mu.Unlock()
	return wd.fired
}
