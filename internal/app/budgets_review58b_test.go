package app

import (
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// review58b: a reload that adds a budget (budgetreload.go), state redis.
// A key's day and month windows are taken away and given back each on its
// own: what was spent while one had no budget is counted when it comes
// back, and only then (before round 60 a "gap" of the log's spend was
// kept for both windows when either went, and deleted whole when either
// came back). Redis counts only a key's budgeted windows.
func review58bSetup(t *testing.T) (spend func(float64), yaml func(string) *config.Config, a *App) {
	return budgetReloadSetup(t, "redis")
}

func review58bReload(t *testing.T, a *App, cfg *config.Config, limit string) float64 {
	if err := a.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	return standing(t, a, &cfg.Clients[0], limit)
}

// A month budget taken away, then a DAY budget added (one the key never
// had: Redis never counted its day): review 58b found the day's $0.35
// never counted.
func TestReview58bRedisGapOfAnotherWindow(t *testing.T) {
	spend, yaml, a := review58bSetup(t)
	if got := review58bReload(t, a, yaml(", budget: {usd_per_month: 5}"), "usd_per_month"); got != 0.35 {
		t.Fatalf("month budget added: $%v, want 0.35", got)
	}
	review58bReload(t, a, yaml(""), "usd_per_month") // taken away
	spend(0.1)
	got := review58bReload(t, a, yaml(", budget: {usd_per_day: 5}"), "usd_per_day")
	if got < 0.449 || got > 0.451 {
		t.Errorf("a day budget the key never had, added after its month budget was taken away: day $%v, want $0.45 (all of today's spend; Redis never counted a day window for it)", got)
	}
}

// Day and month taken away together, then given back one reload apart:
// review 58b found the day's return counting the day's $0.35 twice (the
// Redis day counter still held it).
func TestReview58bRedisGapDeletedByTheFirstWindowBack(t *testing.T) {
	spend, yaml, a := review58bSetup(t)
	both := ", budget: {usd_per_day: 5, usd_per_month: 5}"
	if got := review58bReload(t, a, yaml(both), "usd_per_day"); got != 0.35 {
		t.Fatalf("budgets added: day $%v, want 0.35", got)
	}
	review58bReload(t, a, yaml(""), "usd_per_day")
	spend(0.1)
	if got := review58bReload(t, a, yaml(", budget: {usd_per_month: 5}"), "usd_per_month"); got < 0.449 || got > 0.451 {
		t.Fatalf("month back: $%v, want 0.45", got)
	}
	got := review58bReload(t, a, yaml(both), "usd_per_day")
	if got < 0.449 || got > 0.451 {
		t.Errorf("the day budget given back a reload after the month: day $%v, want $0.45 (the counter's $0.35 plus the log's $0.45 added whole)", got)
	}
}
