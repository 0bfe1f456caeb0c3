package health

import (
	"testing"
	"time"
)

// TestOneSlowSampleCannotDemote: a stream's time to first content is also
// its request's (a long prompt, a model told to reason). One client's slow
// request, even the sample after a stale one, rises the latency by at most
// sampleStep times: a 40 ms endpoint stays well under a 300 ms one after one
// 2 s sample (hostile 57b: it went to 2 s, and a fastest route sent every
// stream elsewhere for remeasure_after). A provider slow for everyone is
// ranked behind the 300 ms one within four such samples.
func TestOneSlowSampleCannotDemote(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	rec := &Record{}
	sample(rec, &Report{OK: true, Latency: 40 * time.Millisecond}, now, 5*time.Minute)
	sample(rec, &Report{OK: true, Latency: 2 * time.Second}, now.Add(time.Second), 5*time.Minute)
	if rec.LatencyEWMA > 100*time.Millisecond {
		t.Errorf("after one 2 s sample on 40 ms: %v", rec.LatencyEWMA)
	}
	stale := &Record{}
	sample(stale, &Report{OK: true, Latency: 40 * time.Millisecond}, now, 5*time.Minute)
	sample(stale, &Report{OK: true, Latency: 2 * time.Second}, now.Add(10*time.Minute), 5*time.Minute)
	if stale.LatencyEWMA > 160*time.Millisecond {
		t.Errorf("a 2 s sample after a stale 40 ms one: %v", stale.LatencyEWMA)
	}
	for i := 2; i <= 4; i++ {
		sample(rec, &Report{OK: true, Latency: 2 * time.Second}, now.Add(time.Duration(i)*time.Second), 5*time.Minute)
	}
	if rec.LatencyEWMA < 300*time.Millisecond {
		t.Errorf("after four 2 s samples: %v, want past 300 ms", rec.LatencyEWMA)
	}
	down := &Record{}
	sample(down, &Report{OK: true, Latency: 2 * time.Second}, now, 5*time.Minute)
	sample(down, &Report{OK: true, Latency: 40 * time.Millisecond}, now.Add(time.Second), 5*time.Minute)
	if want := time.Duration(0.3*40e6 + 0.7*2e9); down.LatencyEWMA != want {
		t.Errorf("a fast sample after a slow one: %v, want %v (a fall is not bounded)", down.LatencyEWMA, want)
	}
}
