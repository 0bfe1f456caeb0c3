package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/redistest"
)

// review58b: restoreAddedBudgets (budgetreload.go), state redis. A gap is
// recorded for a key when ANY of its windows is taken away, with the
// log's spend for BOTH windows, and used for whichever window is later
// added, then deleted whole. Redis counts only a key's budgeted windows.
func review58bSetup(t *testing.T) (write func(float64), yaml func(string) *config.Config, a *App) {
	rs := redistest.Start(t)
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	now := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	write = func(usd float64) {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, `{"id":"x","time":%q,"client":"team-c","attempts":[{"billable":true,"cost_usd":%v}]}`+"\n", now, usd)
		f.Close()
	}
	yaml = func(budget string) *config.Config {
		cfg, err := config.Parse("test.yaml", []byte(`state: {store: redis, url: "`+rs.URL()+`"}
decisions: {path: "`+log+`"}
client_keys:
  - {name: team-c, key: sk-team-c-0123456789`+budget+`}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`), nil)
		if err != nil {
			t.Fatal(err)
		}
		return cfg
	}
	write(0.35)
	var err error
	a, err = New(yaml(""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	return
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
