package decision

import (
	"context"
	"testing"
	"time"
)

// stalledOut is an output whose write never returns until released (a hung
// NFS mount, a pipe nobody reads).
type stalledOut struct{ release chan struct{} }

func (s stalledOut) Write(p []byte) (int, error) { <-s.release; return len(p), nil }

// Review 54b: CloseContext promises that an output stalled in a write
// "must not keep the process from exiting" (hostile 54). With sync: always
// a stalled output holds every request in Write, and once queueSize of
// them wait, the next Write blocks in its channel send while holding mu's
// read lock (sink.go: s.ch <- queued{d, done} before s.mu.RUnlock()).
// CloseContext then takes mu.Lock() before it looks at ctx: it waits for
// ever, and SIGTERM never ends the process.
func TestReview54bCloseContextBoundedWithSyncQueueFull(t *testing.T) {
	out := stalledOut{release: make(chan struct{})}
	w := NewWriter(out, nil, Options{Sync: true})
	defer close(out.release)
	rec := &Decision{ID: "x", Time: time.Unix(0, 0).UTC(), Route: "r", Outcome: OutcomeOK, Status: 200}
	for i := 0; i < queueSize+3; i++ { // requests keep coming while the output is stalled
		go w.Write(rec)
	}
	for deadline := time.Now().Add(10 * time.Second); len(w.ch) < queueSize && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond) // the writes past the queue are parked in their send
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- w.CloseContext(ctx) }()
	select {
	case err := <-done:
		if err != ErrStalled {
			t.Errorf("CloseContext = %v, want ErrStalled", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("CloseContext with a 500ms context has not returned after 5s: blocked on mu.Lock() behind a sync Write parked in its send (queue %d/%d)", len(w.ch), queueSize)
	}
}

// Review 54b: when CloseContext gives up on a stalled output, App.Close
// logs "records not written are counted in detour_decisions_dropped_total"
// with dropped_total; but only the records still in the channel are
// counted (len(s.ch)). The records the goroutine already took and is
// writing in the write that never returns (up to 64 KiB of them) are lost
// uncounted: here all ten.
func TestReview54bCloseContextCountsRecordsInTheStalledWrite(t *testing.T) {
	out := stalledOut{release: make(chan struct{})}
	w := NewWriter(out, nil, Options{})
	defer close(out.release)
	rec := &Decision{ID: "x", Time: time.Unix(0, 0).UTC(), Route: "r", Outcome: OutcomeOK, Status: 200}
	for i := 0; i < 10; i++ {
		w.Write(rec)
	}
	time.Sleep(3 * FlushEvery) // the tick takes them and parks in the write
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	if err := w.CloseContext(ctx); err != ErrStalled {
		t.Fatalf("CloseContext = %v, want ErrStalled", err)
	}
	if got := w.Dropped(); got != 10 {
		t.Errorf("Dropped() = %d after closing with 10 records never written; want 10", got)
	}
}
