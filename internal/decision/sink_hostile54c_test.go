package decision

import (
	"context"
	"sync/atomic"
	"testing"
	"time"
)

// Hostile 54c: with sync: always and a stalled output (a hung NFS mount),
// CloseContext now returns (review 54b), and counts as dropped the
// records queued and those of the stalled write. But the requests whose
// Write is parked in its send to the full queue hold records that are
// lost just the same, and are not counted: App.Close then logs
// dropped_total short of what was lost ("records not written are counted
// in detour_decisions_dropped_total").
func TestHostile54cCloseContextCountsParkedSyncWrites(t *testing.T) {
	out := stalledOut{release: make(chan struct{})}
	w := NewWriter(out, nil, Options{Sync: true})
	rec := &Decision{ID: "x", Time: time.Unix(0, 0).UTC(), Route: "r", Outcome: OutcomeOK, Status: 200}
	const n = queueSize + 5
	var returned atomic.Int64
	for i := 0; i < n; i++ {
		go func() { w.Write(rec); returned.Add(1) }()
	}
	for deadline := time.Now().Add(10 * time.Second); len(w.ch) < queueSize && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(200 * time.Millisecond)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if err := w.CloseContext(ctx); err != ErrStalled {
		t.Fatalf("CloseContext = %v, want ErrStalled", err)
	}
	// Nothing was written: every record is lost.
	if got := w.Dropped(); got != n {
		t.Errorf("Dropped() = %d after giving up on a stalled sync output with %d records never written (queue %d, parked sends uncounted); want %d", got, n, queueSize, n)
	}
	close(out.release)
}

// CloseContext is written to be called again (its once.Do): a caller that
// retries a shutdown that gave up (a second SIGTERM, a wider deadline)
// has the same queued records counted as dropped a second time.
func TestHostile54cSecondCloseContextCountsTheQueueAgain(t *testing.T) {
	out := stalledOut{release: make(chan struct{})}
	defer close(out.release)
	w := NewWriter(out, nil, Options{})
	rec := &Decision{ID: "x", Time: time.Unix(0, 0).UTC(), Route: "r", Outcome: OutcomeOK, Status: 200}
	w.Write(rec)
	time.Sleep(3 * FlushEvery) // the tick takes it and parks in the write
	for i := 0; i < 10; i++ {
		w.Write(rec)
	}
	for i := 0; i < 2; i++ {
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		_ = w.CloseContext(ctx)
		cancel()
	}
	if got := w.Dropped(); got != 11 {
		t.Errorf("Dropped() = %d after two CloseContext calls that gave up with 11 records never written; want 11 (each counted once)", got)
	}
}
