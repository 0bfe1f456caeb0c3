package health

import (
	"testing"
	"time"
)

// A report that finds its endpoint or account cooling already (another
// request cooled it a moment before) causes no transition, and Seen still
// says what cools and until when: dispatch's view of health reads it
// (docs/behaviour.md#api, "Whether to retry").
func testReportSeen(t *testing.T, tr *Tracker, c *clock) {
	epUntil := c.Now().Add(24 * time.Hour)
	tr.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	c.Advance(time.Second)
	var seen Seen
	if trs := tr.ReportSeen(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour}, &seen); len(trs) != 0 {
		t.Fatalf("transitions %+v, want none: the endpoint was cooling already", trs)
	}
	if !seen.EndpointUntil.Equal(epUntil.Add(time.Second)) || !seen.AccountUntil.IsZero() {
		t.Fatalf("seen %+v, want the endpoint cooling until %v and no account read", seen, epUntil.Add(time.Second))
	}

	// The account: another endpoint of it cooled it (auth).
	acctUntil := c.Now().Add(time.Hour)
	tr.Report(ctx, epB, Report{Class: "auth", Count: true, Cool: ScopeAccount, CoolFor: time.Hour})
	seen = Seen{}
	if trs := tr.ReportSeen(ctx, epA, Report{Class: "auth", Count: true, Cool: ScopeAccount, CoolFor: time.Hour}, &seen); len(trs) != 0 {
		t.Fatalf("transitions %+v, want none: the account was cooling already", trs)
	}
	if !seen.AccountUntil.Equal(acctUntil) {
		t.Fatalf("seen %+v, want the account cooling until %v", seen, acctUntil)
	}

	// A healthy endpoint's failure below the threshold: nothing cools.
	seen = Seen{}
	tr.ReportSeen(ctx, epC, Report{Class: "server_error", Count: true}, &seen)
	if seen != (Seen{}) {
		t.Fatalf("seen %+v after one server error, want nothing cooling", seen)
	}
}
