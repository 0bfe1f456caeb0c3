package metrics

import (
	"context"
	"sync/atomic"
	"testing"
)

// Scrapes that come together share one read of the limits' counters: a
// flood of scrapes costs Redis one read a key per second, not one per
// scrape (hostile 52c: 600 concurrent scrapes put every replica's limits
// and health on local state).
func TestLimitGaugesShareOneRead(t *testing.T) {
	m := New()
	var reads atomic.Int32
	m.ReadLimits(func(context.Context) []LimitUse {
		reads.Add(1)
		return []LimitUse{{Client: "team-a", Limit: "usd_per_day", Used: 1.5, Cap: 2}}
	})
	m.Retain(Served{Clients: []string{"team-a"}})
	for range 5 {
		if v := gauge(t, scrape(t, m), "detour_client_limit_used", "client=team-a", "limit=usd_per_day"); v != 1.5 {
			t.Fatalf("detour_client_limit_used = %v, want 1.5", v)
		}
	}
	if n := reads.Load(); n != 1 {
		t.Errorf("5 scrapes in a row read the limits %d times, want once", n)
	}
}
