package app

import (
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// review58b: restoreAddedBudgets (budgetreload.go), state redis. A gap was
// recorded for a key when ANY of its windows was taken away, with the
// log's spend for BOTH windows, and used for whichever window was later
// added, then deleted whole; gaps are per window now. Redis counts only a
// key's budgeted windows.
func review58bSetup(t *testing.T) (write func(float64), yaml func(string) *config.Config, a *App) {
	return budgetReloadSetup(t, "redis")
}

func review58bReload(t *testing.T, a *App, cfg *config.Config, limit string) float64 {
	if err := a.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	return standing(t, a, &cfg.Clients[0], limit)
}

// A month budget taken away, then a DAY budget added (one the key never
// had: Redis never counted its day): the gap's day spend (recorded when
// the month went) was subtracted from the log's day spend, and the day's
// $0.35 was never counted. Gaps are per window now.
func TestReview58bRedisGapOfAnotherWindow(t *testing.T) {
	write, yaml, a := review58bSetup(t)
	if got := review58bReload(t, a, yaml(", budget: {usd_per_month: 5}"), "usd_per_month"); got != 0.35 {
		t.Fatalf("month budget added: $%v, want 0.35", got)
	}
	review58bReload(t, a, yaml(""), "usd_per_month") // taken away: gap {0.35, 0.35}
	write(0.1)
	got := review58bReload(t, a, yaml(", budget: {usd_per_day: 5}"), "usd_per_day")
	if got < 0.449 || got > 0.451 {
		t.Errorf("a day budget the key never had, added after its month budget was taken away: day $%v, want $0.45 (all of today's spend; Redis never counted a day window for it)", got)
	}
}

// Day and month taken away together, then given back one reload apart:
// the first (month) deleted the gap for both, and the day's return added
// the log's whole day on top of the Redis day counter that still held
// its $0.35: counted twice, the bug 8aaa7fc fixed, back for the second
// window.
func TestReview58bRedisGapDeletedByTheFirstWindowBack(t *testing.T) {
	write, yaml, a := review58bSetup(t)
	both := ", budget: {usd_per_day: 5, usd_per_month: 5}"
	if got := review58bReload(t, a, yaml(both), "usd_per_day"); got != 0.35 {
		t.Fatalf("budgets added: day $%v, want 0.35", got)
	}
	review58bReload(t, a, yaml(""), "usd_per_day")
	write(0.1)
	if got := review58bReload(t, a, yaml(", budget: {usd_per_month: 5}"), "usd_per_month"); got < 0.449 || got > 0.451 {
		t.Fatalf("month back: $%v, want 0.45", got)
	}
	got := review58bReload(t, a, yaml(both), "usd_per_day")
	if got < 0.449 || got > 0.451 {
		t.Errorf("the day budget given back a reload after the month: day $%v, want $0.45 (the counter's $0.35 plus the log's $0.45 added whole)", got)
	}
}
