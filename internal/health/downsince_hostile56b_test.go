package health

import (
	"testing"
	"time"
)

// TestHostile56bRecoverySinceNeverAfterNow: a record whose
// open_since_ns is ahead of the shared clock (written by a replica whose
// clock was ahead before it measured Redis's TIME, or any writer a Redis
// restore brought back) reads "now" on /v1/health (since() clamps it), but
// the change to healthy carries it as it is: Transition.Since, which goes
// into the decision record, the log line and the recovery post ("out since
// <later than it answered> (-1h0m0s)"). Nothing bounds OpenSince when a
// record is read, as docs/behaviour.md ("One clock, bounded by the
// reader") says every record read is bounded.
func TestHostile56bRecoverySinceNeverAfterNow(t *testing.T) {
	c := newClock()
	m := NewMemory()
	m.SetClock(c.Now)
	s := Settings{FailureThreshold: 3, Cooldown: 10 * time.Second, MaxCooldown: 35 * time.Second, ProbeLease: 30 * time.Second}
	tr := New(m, s, all3, c.Now)
	coolA(tr, c) // cooled at c.Now()-10s, probing now
	n := tr.names(epA)
	rec := m.get(n.ep)
	if rec.OpenSince == 0 {
		t.Fatalf("cooled record has no OpenSince: %+v", rec)
	}
	rec.OpenSince = c.Now().Add(time.Hour).UnixNano() // written an hour ahead
	m.put(n.ep, rec)
	for _, e := range func() []EndpointHealth { eps, _ := tr.Snapshot(ctx); return eps }() {
		if e.Target+"/"+e.Provider == epA.String() && e.DownSince != nil && e.DownSince.After(c.Now()) {
			t.Errorf("/v1/health down_since %v after now %v", e.DownSince, c.Now())
		}
	}
	tr.TryProbe(ctx, epA)
	trs := tr.Report(ctx, epA, Report{OK: true})
	var closed *Transition
	for i := range trs {
		if trs[i].To == Healthy {
			closed = &trs[i]
		}
	}
	if closed == nil {
		t.Fatalf("the probe's success closed nothing: %+v", trs)
	}
	if closed.Since.After(c.Now()) {
		t.Errorf("the change to healthy says out since %v, %v after it answered (%v): /v1/health read the same record as now",
			closed.Since.UTC(), closed.Since.Sub(c.Now()), c.Now())
	}
}

// A start before the epoch (a foreign writer's -9e18) is not known: no
// down_since, rather than one in 1677.
func TestHostile56bNegativeOpenSinceIsNotKnown(t *testing.T) {
	c := newClock()
	m := NewMemory()
	m.SetClock(c.Now)
	tr := New(m, Settings{FailureThreshold: 3, Cooldown: 10 * time.Second, MaxCooldown: 35 * time.Second, ProbeLease: 30 * time.Second}, all3, c.Now)
	coolA(tr, c)
	n := tr.names(epA)
	rec := m.get(n.ep)
	rec.OpenSince = -9e18
	m.put(n.ep, rec)
	eps, _ := tr.Snapshot(ctx)
	for _, e := range eps {
		if e.Target+"/"+e.Provider == epA.String() && (e.State == "healthy" || e.DownSince != nil) {
			t.Errorf("%s: state %s, down_since %v; want probing and no down_since", epA, e.State, e.DownSince)
		}
	}
}
