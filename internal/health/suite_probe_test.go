package health

import (
	"context"
	"sync"
	"testing"
	"time"
)

// Probe and doubling cases of the shared suite (runSuite).

func coolA(tr *Tracker, c *clock) {
	for range 3 {
		tr.Report(ctx, epA, fail("server_error"))
	}
	c.Advance(10 * time.Second)
}

func testProbeLease(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Minute})
	if ok, got := tr.TryProbe(ctx, epA); ok || got != nil {
		t.Fatalf("probe while cooling: %v %v", ok, got)
	}
	if ok, _ := tr.TryProbe(ctx, epB); !ok {
		t.Fatal("a healthy endpoint needs no probe slot: want true")
	}
	c.Advance(time.Minute)
	ok, got := tr.TryProbe(ctx, epA)
	if !ok {
		t.Fatal("first probe should win")
	}
	wantTr(t, got, Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Cooling, To: Probing, Class: "unavailable"})
	for range 3 {
		if ok, got := tr.TryProbe(ctx, epA); ok || got != nil {
			t.Fatalf("second probe won the held slot: %v %v", ok, got)
		}
	}
	c.Advance(29 * time.Second)
	if ok, _ := tr.TryProbe(ctx, epA); ok {
		t.Fatal("lease not yet over")
	}
	c.Advance(time.Second)
	if ok, got := tr.TryProbe(ctx, epA); !ok || got != nil {
		t.Fatalf("lease over: want the slot again, no transition; got %v %v", ok, got)
	}
	// Concurrent probers: exactly one wins.
	c.Advance(30 * time.Second)
	var wins sync.Map
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			if ok, _ := tr.TryProbe(ctx, epA); ok {
				wins.Store(i, true)
			}
		})
	}
	wg.Wait()
	n := 0
	wins.Range(func(any, any) bool { n++; return true })
	if n != 1 {
		t.Fatalf("%d concurrent probers won, want 1", n)
	}
}

func testProbeSuccess(t *testing.T, tr *Tracker, c *clock) {
	coolA(tr, c)
	tr.TryProbe(ctx, epA)
	wantTr(t, tr.Report(ctx, epA, Report{OK: true, Latency: time.Second}),
		Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Probing, To: Healthy, Class: "server_error", Since: c.Now().Add(-10 * time.Second)})
	if st := wantPhase(t, tr, epA, Healthy); st.Failures != 0 {
		t.Fatalf("%+v", st)
	}
	// Closed: the threshold applies afresh, and the next cooldown is the base.
	tr.Report(ctx, epA, fail("server_error"))
	tr.Report(ctx, epA, fail("server_error"))
	wantPhase(t, tr, epA, Healthy)
	tr.Report(ctx, epA, fail("server_error"))
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(c.Now().Add(10 * time.Second)) {
		t.Fatalf("after close the cooldown restarts at base: %+v", st)
	}
}

func testProbeDoubles(t *testing.T, tr *Tracker, c *clock) {
	coolA(tr, c)
	for _, want := range []time.Duration{20 * time.Second, 35 * time.Second, 35 * time.Second} {
		if ok, _ := tr.TryProbe(ctx, epA); !ok {
			t.Fatal("probe refused")
		}
		until := c.Now().Add(want)
		wantTr(t, tr.Report(ctx, epA, fail("server_error")),
			Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Probing, To: Cooling, Class: "server_error", Until: until})
		if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(until) {
			t.Fatalf("cooldown %v, want %v", st.Until.Sub(c.Now()), want)
		}
		c.Advance(want)
	}
	// A failure while probing doubles even without TryProbe (tried anyway).
	c.Advance(time.Hour)
	tr.Report(ctx, epA, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: time.Second})
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(c.Now().Add(35 * time.Second)) {
		t.Fatalf("cooldown %v, want 35s", st.Until.Sub(c.Now()))
	}
}

func testLongBase(t *testing.T, tr *Tracker, c *clock) {
	for range 3 {
		tr.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
		if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(c.Now().Add(24 * time.Hour)) {
			t.Fatalf("cooldown %v, want 24h (not cut to MaxCooldown, not doubled past it)", st.Until.Sub(c.Now()))
		}
		c.Advance(24 * time.Hour)
		tr.TryProbe(ctx, epA)
	}
}

func testInconclusive(t *testing.T, tr *Tracker, c *clock) {
	coolA(tr, c)
	tr.TryProbe(ctx, epA)
	wantTr(t, tr.Report(ctx, epA, Report{Class: "context_length"}))
	wantPhase(t, tr, epA, Probing)
	if ok, _ := tr.TryProbe(ctx, epA); ok {
		t.Fatal("lease should still be held")
	}
}

func testAccountProbe(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, Report{Class: "auth", Cool: ScopeAccount, CoolFor: 10 * time.Second})
	c.Advance(10 * time.Second)
	wantPhase(t, tr, epA, Probing)
	wantPhase(t, tr, epB, Probing)
	ok, got := tr.TryProbe(ctx, epB)
	if !ok {
		t.Fatal("account probe refused")
	}
	wantTr(t, got, Transition{Scope: ScopeAccount, Name: "anthropic", From: Cooling, To: Probing, Class: "auth"})
	if ok, _ := tr.TryProbe(ctx, epA); ok {
		t.Fatal("the account's one probe slot is held by epB")
	}
	// Probe fails for the account: doubled (10s → 20s).
	until := c.Now().Add(20 * time.Second)
	wantTr(t, tr.Report(ctx, epB, Report{Class: "auth", Cool: ScopeAccount, CoolFor: 10 * time.Second}),
		Transition{Scope: ScopeAccount, Name: "anthropic", From: Probing, To: Cooling, Class: "auth", Until: until})
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(until) {
		t.Fatalf("%+v", st)
	}
	c.Advance(20 * time.Second)
	if ok, _ := tr.TryProbe(ctx, epA); !ok {
		t.Fatal("probe refused")
	}
	wantTr(t, tr.Report(ctx, epA, Report{OK: true}),
		Transition{Scope: ScopeAccount, Name: "anthropic", From: Probing, To: Healthy, Class: "auth", Since: c.Now().Add(-30 * time.Second)}) // out since the first auth verdict
	wantPhase(t, tr, epA, Healthy)
	wantPhase(t, tr, epB, Healthy)
}

// testProbeHeldView: while one request holds the probe, View tells others
// so (ProbeHeld, Until = the lease's end) so they try the endpoint last; once
// the lease lapses the probe is free again.
func testProbeHeldView(t *testing.T, tr *Tracker, c *clock) {
	ctx := context.Background()
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 10 * time.Second})
	c.Advance(11 * time.Second)
	if st := tr.View(ctx, []Key{epA})[0]; st.Phase != Probing || st.ProbeHeld {
		t.Fatalf("after the cooldown: %+v, want probing with the probe free", st)
	}
	if ok, _ := tr.TryProbe(ctx, epA); !ok {
		t.Fatal("the free probe was not granted")
	}
	st := tr.View(ctx, []Key{epA})[0]
	if st.Phase != Probing || !st.ProbeHeld || !st.Until.Equal(c.Now().Add(30*time.Second)) {
		t.Fatalf("while held: %+v, want probing, held until the lease ends", st)
	}
	c.Advance(31 * time.Second)
	if st := tr.View(ctx, []Key{epA})[0]; st.ProbeHeld {
		t.Fatalf("after the lease: %+v, want the probe free again", st)
	}
}

// testProbeRelease: a probe that learned nothing gives its slot back, so the
// next request probes at once rather than after the lease.
func testProbeRelease(t *testing.T, tr *Tracker, c *clock) {
	ctx := context.Background()
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 10 * time.Second})
	c.Advance(11 * time.Second)
	if ok, _ := tr.TryProbe(ctx, epA); !ok {
		t.Fatal("the free probe was not granted")
	}
	if ok, _ := tr.TryProbe(ctx, epA); ok {
		t.Fatal("a second probe was granted while the first holds the slot")
	}
	tr.Report(ctx, epA, Report{Class: "bad_request", Release: true})
	st := tr.View(ctx, []Key{epA})[0]
	if st.Phase != Probing || st.ProbeHeld {
		t.Fatalf("after an inconclusive probe: %+v, want probing with the slot free", st)
	}
	if ok, _ := tr.TryProbe(ctx, epA); !ok {
		t.Fatal("the released probe was not granted again")
	}
}

// A cooling endpoint is still tried when nothing else serves: a success
// whose attempt began after the cooldown did closes it (review 32e), one
// begun before it (a stream started earlier) does not, nor a success that
// says nothing of when it began.
func testServedWhileCooling(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	c.Advance(time.Minute)
	tr.Report(ctx, epA, Report{OK: true, Took: 2 * time.Minute}) // began before the 404
	wantPhase(t, tr, epA, Cooling)
	tr.Report(ctx, epA, Report{OK: true})
	wantPhase(t, tr, epA, Cooling)
	wantTr(t, tr.Report(ctx, epA, Report{OK: true, Took: 30 * time.Second}),
		Transition{Scope: ScopeEndpoint, Name: "claude/anthropic", From: Cooling, To: Healthy, Class: "unavailable", Since: c.Now().Add(-time.Minute)})
	wantPhase(t, tr, epA, Healthy)

	// An account cooling is not closed by a success: it may cool for one
	// model's spent allowance, which another endpoint's success says
	// nothing of (review 32h). Only its probe closes it.
	tr.Report(ctx, epB, Report{Class: "quota", Count: true, Cool: ScopeAccount, CoolFor: time.Hour})
	c.Advance(time.Minute)
	tr.Report(ctx, epA, Report{OK: true, Took: 10 * time.Second})
	wantPhase(t, tr, epA, Cooling)
	wantPhase(t, tr, epB, Cooling)
}

// A probe that fails with the upstream's own wait again (Retry-After) is
// cooled for that wait, not twice the last one: the request that waited
// out the first hint and met the same answer is told the same (review 32e).
func testHintedProbeNoDouble(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: 2 * time.Second, Hinted: true})
	c.Advance(2 * time.Second)
	wantPhase(t, tr, epA, Probing)
	tr.Report(ctx, epA, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: 2 * time.Second, Hinted: true})
	if st := wantPhase(t, tr, epA, Cooling); !st.Until.Equal(c.Now().Add(2 * time.Second)) {
		t.Fatalf("until %v, want now+2s", st.Until)
	}
	// A configured cooldown still doubles on a failed probe.
	tr.Report(ctx, epC, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 4 * time.Second})
	c.Advance(4 * time.Second)
	tr.Report(ctx, epC, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 4 * time.Second})
	if st := wantPhase(t, tr, epC, Cooling); !st.Until.Equal(c.Now().Add(8 * time.Second)) {
		t.Fatalf("configured: until %v, want now+8s (doubled)", st.Until)
	}
}

// A cooldown extended by a later failure dates from that failure: a
// success begun before it, though after the cooldown first began, closes
// nothing (review 32h: a 429 near the end of a 60 s cooldown, then a
// stream begun 25 s before the 429 ending well).
func testServedAfterExtension(t *testing.T, tr *Tracker, c *clock) {
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 60 * time.Second})
	c.Advance(45 * time.Second)
	tr.Report(ctx, epA, Report{Class: "rate_limited", Cool: ScopeEndpoint, CoolFor: 30 * time.Second})
	c.Advance(5 * time.Second)
	tr.Report(ctx, epA, Report{OK: true, Took: 30 * time.Second}) // began 25 s before the 429
	wantPhase(t, tr, epA, Cooling)
	tr.Report(ctx, epA, Report{OK: true, Took: 4 * time.Second}) // began after it
	wantPhase(t, tr, epA, Healthy)
}
