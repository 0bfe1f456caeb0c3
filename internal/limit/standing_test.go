package limit

import (
	"context"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
)

// A key's standing against each limit it has, in the limit's unit, with
// when its window turns; read from the counters, counting nothing, so a
// console that reads it every second moves no limit. Over Redis, two
// replicas' spend is one standing.
func TestStandings(t *testing.T) {
	counters(t, func(t *testing.T, mk func(now func() time.Time) Counter) {
		clk := newClock(at("2026-12-01T10:00:30Z"))
		c := mk(clk.Now)
		a, b := New(c, clk.Now), New(c, clk.Now)
		k := key(config.ClientKey{Name: "team-a", Rate: config.Rate{RequestsPerMinute: 10}, Budget: config.Budget{USDPerDay: 2, USDPerMonth: 40}})
		ctx := context.Background()
		a.Admit(ctx, k)
		b.Admit(ctx, k)
		a.Spend(ctx, k, 500, 0.25)
		b.Spend(ctx, k, 500, 0.5)
		for range 3 {
			a.Standings(ctx, k) // reading counts nothing
		}
		got := b.Standings(ctx, k)
		want := []Standing{
			{Limit: "requests_per_minute", Cap: 10, Used: 2, Resets: at("2026-12-01T10:01:00Z")},
			{Limit: "usd_per_day", Cap: 2, Used: 0.75, Resets: at("2026-12-02T00:00:00Z")},
			{Limit: "usd_per_month", Cap: 40, Used: 0.75, Resets: at("2027-01-01T00:00:00Z")},
		}
		if len(got) != len(want) {
			t.Fatalf("standings %+v, want %+v", got, want)
		}
		for i := range want {
			if got[i].Limit != want[i].Limit || got[i].Cap != want[i].Cap || got[i].Used != want[i].Used || !got[i].Resets.Equal(want[i].Resets) {
				t.Errorf("standing %d: %+v, want %+v", i, got[i], want[i])
			}
		}
		if s := a.Standings(ctx, key(config.ClientKey{Name: "free"})); s != nil {
			t.Errorf("a key without limits: %+v", s)
		}
	})
}

// Cap names each limit's cap in its unit, as Standings does.
func TestCapInItsUnit(t *testing.T) {
	k := &config.ClientKey{Name: "k", Rate: config.Rate{RequestsPerMinute: 60, TokensPerMinute: 1000},
		Budget: config.Budget{USDPerDay: 2.5, USDPerMonth: 40}, MaxConcurrent: 3}
	for name, want := range map[string]float64{"requests_per_minute": 60, "tokens_per_minute": 1000,
		"usd_per_day": 2.5, "usd_per_month": 40, "max_concurrent": 3, "nonsense": 0} {
		if got := Cap(k, name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}
