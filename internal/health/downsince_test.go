package health

import (
	"testing"
	"time"
)

// GET /v1/health says since when an endpoint or account has been out
// (down_since): the first cooldown since it last served, kept through
// failed probes and doubled cooldowns, which each start a new short
// cooldown (operator review 55: nothing said how long a provider had been
// down all night); null once a success closes it. An endpoint held back by
// its account's cooldown is down since the earlier of the two.
func testDownSince(t *testing.T, tr *Tracker, c *clock) {
	snap := func() (ep, acct *time.Time) {
		t.Helper()
		eps, accts := tr.Snapshot(ctx)
		for _, e := range eps {
			if e.Target+"/"+e.Provider == epA.String() {
				ep = e.DownSince
			}
		}
		for _, a := range accts {
			if a.Name == epA.Provider {
				acct = a.DownSince
			}
		}
		return ep, acct
	}
	same := func(what string, got *time.Time, want time.Time) {
		t.Helper()
		if got == nil || !got.Equal(want) {
			t.Fatalf("%s down_since = %v, want %v", what, got, want)
		}
	}
	if ep, acct := snap(); ep != nil || acct != nil {
		t.Fatalf("healthy: down_since %v %v, want null", ep, acct)
	}
	first := c.Now()
	coolA(tr, c) // three failures at first, then 10 s
	ep, _ := snap()
	same("probing endpoint", ep, first)
	tr.TryProbe(ctx, epA)
	tr.Report(ctx, epA, fail("timeout")) // the probe fails: a new, doubled cooldown
	c.Advance(time.Minute)
	tr.TryProbe(ctx, epA)
	tr.Report(ctx, epA, fail("timeout"))
	ep, _ = snap()
	same("endpoint after two failed probes", ep, first)

	// The account cools later: the endpoint is down since its own start,
	// the account since the account's.
	acctFrom := c.Now()
	tr.Report(ctx, epB, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
	ep, acct := snap()
	same("endpoint with its account cooling", ep, first)
	same("account", acct, acctFrom)

	// Both close: null; the next cooldown starts a new span.
	c.Advance(time.Hour)
	tr.TryProbe(ctx, epA)
	if trs := tr.Report(ctx, epA, Report{OK: true}); len(trs) == 0 {
		t.Fatal("the probe's success closed nothing")
	}
	if ep, acct := snap(); ep != nil || acct != nil {
		t.Fatalf("closed: down_since %v %v, want null", ep, acct)
	}
	c.Advance(time.Minute)
	again := c.Now()
	tr.Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Minute})
	ep, _ = snap()
	same("endpoint cooled again", ep, again)
}
