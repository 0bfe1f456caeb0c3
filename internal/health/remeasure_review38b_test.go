package health

import (
	"context"
	"testing"
	"time"
)

// An operator relies on a latency sample ageing: once it is older than
// remeasure_after, exactly one request (per interval) is let measure the
// endpoint again, and the new sample replaces the old one instead of being
// smoothed into it, so a brownout or one client's long answer does not
// rank the endpoint for longer than that.
func TestReview38bStaleLatencyIsMeasuredAgainOnce(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	k := Key{Target: "a", Provider: "p"}
	tr := New(NewMemory(), Settings{RemeasureAfter: time.Minute}, []Key{k}, func() time.Time { return now })

	tr.Report(ctx, k, Report{OK: true, Latency: 30 * time.Second, Took: 30 * time.Second})
	if st := tr.View(ctx, []Key{k})[0]; !st.Measured || st.Stale || st.Latency != 30*time.Second {
		t.Fatalf("fresh sample: %+v", st)
	}
	if tr.ClaimMeasure(ctx, k) {
		t.Fatal("a fresh sample was claimed for measuring again")
	}
	now = now.Add(61 * time.Second)
	if st := tr.View(ctx, []Key{k})[0]; !st.Stale {
		t.Fatalf("a sample 61s old with remeasure_after 1m is not stale: %+v", st)
	}
	if !tr.ClaimMeasure(ctx, k) {
		t.Fatal("the first claim on a stale sample lost")
	}
	if tr.ClaimMeasure(ctx, k) {
		t.Fatal("a second request won the same measuring")
	}
	if st := tr.View(ctx, []Key{k})[0]; st.Stale {
		t.Fatalf("stale while a request measures it: %+v", st)
	}
	tr.Report(ctx, k, Report{OK: true, Latency: 200 * time.Millisecond, Took: 200 * time.Millisecond})
	if st := tr.View(ctx, []Key{k})[0]; st.Latency != 200*time.Millisecond || st.Stale {
		t.Fatalf("the new sample did not replace the stale one: %+v", st)
	}
	// A fresh sample is smoothed as before.
	tr.Report(ctx, k, Report{OK: true, Latency: 400 * time.Millisecond, Took: 400 * time.Millisecond})
	if st := tr.View(ctx, []Key{k})[0]; st.Latency != 260*time.Millisecond {
		t.Fatalf("a fresh sample was not smoothed: %v", st.Latency)
	}
	// A measuring that brought no sample (it failed) is let again one
	// interval later.
	now = now.Add(61 * time.Second)
	if !tr.ClaimMeasure(ctx, k) {
		t.Fatal("claim after the sample went stale again")
	}
	now = now.Add(30 * time.Second)
	if tr.ClaimMeasure(ctx, k) {
		t.Fatal("claimed again inside the measuring lease")
	}
	now = now.Add(31 * time.Second)
	if !tr.ClaimMeasure(ctx, k) {
		t.Fatal("a lapsed measuring lease was not let again")
	}
}

// An operator relies on a record written ahead of the shared clock (a
// replica's wrong clock, a hand-written record) not holding off measuring
// for longer than remeasure_after.
func TestReview38bSampleTimeAheadIsBounded(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	k := Key{Target: "a", Provider: "p"}
	m := NewMemory()
	tr := New(m, Settings{RemeasureAfter: time.Minute}, []Key{k}, func() time.Time { return now })
	n := tr.names(k)
	_ = m.Update(ctx, n.ep, func(r *Record) {
		r.Samples, r.LatencyEWMA = 1, time.Second
		r.SampledAt = now.Add(24 * time.Hour).UnixNano()
		r.MeasureUntil = now.Add(24 * time.Hour).UnixNano()
	}, nil)
	tr.View(ctx, []Key{k}) // bounds and writes back
	now = now.Add(62 * time.Second)
	if st := tr.View(ctx, []Key{k})[0]; !st.Stale {
		t.Fatalf("a sample dated a day ahead still holds off measuring: %+v, record %+v", st, m.get(n.ep))
	}
}
