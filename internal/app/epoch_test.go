package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/redistest"
)

// epochCfg is a Redis-state configuration whose decision log holds $3 of
// team-a's spend this month.
func epochCfg(t *testing.T, rs *redistest.Server) *config.Config {
	t.Helper()
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	rec := fmt.Appendf(nil, `{"id":"x","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":3}]}`+"\n", time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano))
	if err := os.WriteFile(log, rec, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Parse("test.yaml", []byte(`state: {store: redis, url: "`+rs.URL()+`"}
decisions: {path: "`+log+`"}
client_keys:
  - {name: team-a, key: sk-team-a-0123456789, budget: {usd_per_month: 100}}
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

// monthUsedBy is monthUsed once it reads want, or after a failure guard
// (the watcher judges the markers beside the start, not in it): two checks
// and more, since a first check that a loaded machine holds past its
// Redis timeout is made again only epochEvery later.
func monthUsedBy(t *testing.T, a *App, cfg *config.Config, want float64) float64 {
	t.Helper()
	got := monthUsed(t, a, cfg)
	for end := time.Now().Add(2*epochEvery + 5*time.Second); got != want && time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		got = monthUsed(t, a, cfg)
	}
	return got
}

func monthUsed(t *testing.T, a *App, cfg *config.Config) float64 {
	t.Helper()
	for _, s := range a.limits.Standings(context.Background(), &cfg.Clients[0]) {
		if s.Limit == "usd_per_month" {
			return s.Used
		}
	}
	t.Fatal("no usd_per_month standing")
	return 0
}

// A replica that finds Redis holding none of Detour's state gives the
// budgets its own log's spend back (operator review 53: a Redis restarted
// empty gave every key its budget back). One that finds spend counted
// there already, but no marker — a Detour before round 53, which wrote
// none — adds nothing: the spend is there.
func TestEpochRestoresOnlyIntoAnEmptyRedis(t *testing.T) {
	rs := redistest.Start(t)
	cfg := epochCfg(t, rs)
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := monthUsedBy(t, a, cfg, 3); got != 3 {
		t.Errorf("empty Redis: team-a's month at $%v, want the log's $3", got)
	}
	a.Close(context.Background())

	// The upgrade: counters in Redis, no marker.
	rdb := redis.NewClient(&redis.Options{Addr: rs.Addr()})
	defer rdb.Close()
	if err := rdb.Del(context.Background(), epochKey("team-a")).Err(); err != nil {
		t.Fatal(err)
	}
	b, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	time.Sleep(time.Second) // the watcher's first look
	if got := monthUsed(t, b, cfg); got != 3 {
		t.Errorf("Redis with the month's spend and no marker: team-a's month at $%v, want $3 (not added again)", got)
	}
}
