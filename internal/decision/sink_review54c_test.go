package decision

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// Review 54c: with sync: always and a stalled output, CloseContext gives up
// while sync Writes are parked in their send to the full queue. Its
// once.Do goroutine then waits in s.mu.Lock for ever (the parked Writes
// hold the read side), and a pending Lock blocks every new RLock (sync.RWMutex).
// A Write that comes after that — "a handler that outlived the shutdown",
// which Close's doc says "is dropped and counted" — neither returns nor is
// counted: Dropped() stays short of what was lost.
func TestReview54cWriteAfterGivenUpCloseIsCounted(t *testing.T) {
	out := stalledOut{release: make(chan struct{})}
	defer close(out.release)
	w := NewWriter(out, nil, Options{Sync: true})
	rec := &Decision{ID: "x", Time: time.Unix(0, 0).UTC(), Route: "r", Outcome: OutcomeOK, Status: 200}
	const n = 1 + queueSize + 50
	go w.Write(rec) // the loop takes it and stalls in its write
	for deadline := time.Now().Add(5 * time.Second); w.writing.Load() < 1 && time.Now().Before(deadline); {
		time.Sleep(time.Millisecond)
	}
	for i := 1; i < n; i++ {
		go w.Write(rec)
	}
	for deadline := time.Now().Add(10 * time.Second); (len(w.ch) < queueSize || w.parked.Load() < 1) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("queued %d, parked %d, writing %d", len(w.ch), w.parked.Load(), w.writing.Load())
	time.Sleep(200 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := w.CloseContext(ctx); err != ErrStalled {
		t.Fatalf("CloseContext = %v, want ErrStalled", err)
	}
	before := w.Dropped()
	var returned atomic.Bool
	go func() { w.Write(rec); returned.Store(true) }() // a request that outlived the shutdown
	time.Sleep(500 * time.Millisecond)
	if !returned.Load() || w.Dropped() != before+1 {
		t.Errorf("a Write after a CloseContext that gave up: returned=%v, Dropped() %d -> %d; want it dropped and counted (returned, %d)", returned.Load(), before, w.Dropped(), before+1)
	}
}

// countingStalled is stalledOut that counts the lines it was given.
type countingStalled struct {
	release chan struct{}
	lines   *atomic.Int64
}

func (s countingStalled) Write(p []byte) (int, error) {
	<-s.release
	for _, b := range p {
		if b == '\n' {
			s.lines.Add(1)
		}
	}
	return len(p), nil
}
