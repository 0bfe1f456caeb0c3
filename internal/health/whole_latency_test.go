package health

import (
	"context"
	"testing"
	"time"
)

// A fastest route orders targets by latency. A whole (non-stream) answer's
// time to first byte is its whole generation, which the client's prompt
// and max_tokens decide: one client's long whole answers must not demote a
// target whose streams answer fast. They measure an endpoint only while no
// stream's sample is recent; a stream's sample replaces theirs.
func TestWholeAnswersDoNotOutweighStreams(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	k := Key{Target: "a", Provider: "p"}
	tr := New(NewMemory(), Settings{RemeasureAfter: time.Minute}, []Key{k}, func() time.Time { return now })
	latency := func() time.Duration { return tr.View(ctx, []Key{k})[0].Latency }

	// Only whole answers so far: they are the measure.
	tr.Report(ctx, k, Report{OK: true, Whole: true, Latency: 4 * time.Second, Took: 4 * time.Second})
	if got := latency(); got != 4*time.Second {
		t.Fatalf("a whole answer alone: latency %v, want 4s", got)
	}
	// A stream's sample replaces whole answers' (not smoothed into them).
	tr.Report(ctx, k, Report{OK: true, Latency: 300 * time.Millisecond, Took: 2 * time.Second})
	if got := latency(); got != 300*time.Millisecond {
		t.Fatalf("after a stream: latency %v, want the stream's 300ms", got)
	}
	// Long whole answers while the stream's sample is recent: ignored.
	for range 5 {
		now = now.Add(5 * time.Second)
		tr.Report(ctx, k, Report{OK: true, Whole: true, Latency: 30 * time.Second, Took: 30 * time.Second})
	}
	if got := latency(); got != 300*time.Millisecond {
		t.Fatalf("after long whole answers: latency %v, want the stream's 300ms kept", got)
	}
	// Streams are smoothed as before.
	tr.Report(ctx, k, Report{OK: true, Latency: 500 * time.Millisecond, Took: time.Second})
	if got := latency(); got != 360*time.Millisecond {
		t.Fatalf("a second stream: latency %v, want 360ms", got)
	}
	// Once the streams' sample is stale, a whole answer measures again.
	now = now.Add(61 * time.Second)
	tr.Report(ctx, k, Report{OK: true, Whole: true, Latency: 2 * time.Second, Took: 2 * time.Second})
	if got := latency(); got != 2*time.Second {
		t.Fatalf("a whole answer after the streams' sample went stale: latency %v, want 2s", got)
	}
}
