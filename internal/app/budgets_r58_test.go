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

// The cache reads only what was appended since its last read, a record
// still being written is read once it is whole, and a file rotated away
// (a new file under the name) is read again from its start: each read
// agrees with a read of the whole log.
func TestSpentCacheReadsOnlyWhatWasAppended(t *testing.T) {
	path := filepath.Join(t.TempDir(), "decisions.jsonl")
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	rec := func(client string, usd float64) string {
		return fmt.Sprintf(`{"id":"x","time":%q,"client":%q,"attempts":[{"billable":true,"cost_usd":%v}]}`+"\n", now.Format(time.RFC3339Nano), client, usd)
	}
	appendTo := func(s string) {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(s)
		f.Close()
	}
	var c spentCache
	read := func() [2]float64 {
		got, whole := cachedSpent(t, &c, path, month, day), wholeSpent(t, month, day, path)
		if got["team-a"] != whole["team-a"] {
			t.Errorf("cached read %v, whole read %v", got["team-a"], whole["team-a"])
		}
		return got["team-a"]
	}
	appendTo(rec("team-a", 1) + rec("team-b", 5))
	if got := read(); got[1] != 1 {
		t.Fatalf("first read: %v", got)
	}
	r2 := rec("team-a", 2)
	appendTo(r2[:len(r2)/2]) // the writer is half way through a record
	if got := read(); got[1] != 1 {
		t.Fatalf("with a half-written record: %v", got)
	}
	appendTo(r2[len(r2)/2:])
	if got := read(); got[1] != 3 {
		t.Fatalf("once it is whole: %v, want 3", got)
	}
	if e := c.files[path]; e.end != int64(len(rec("team-a", 1))+len(rec("team-b", 5))+len(r2)) {
		t.Errorf("read through %d", e.end)
	}
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendTo(rec("team-a", 4))
	if got := read(); got[1] != 4 {
		t.Errorf("after a rotation the new file holds $4 of team-a's; read %v", got)
	}
}

// cachedSpent reads path's spend through c.
func cachedSpent(t *testing.T, c *spentCache, path string, month, day time.Time) map[string][2]float64 {
	t.Helper()
	got := map[string][2]float64{}
	if err := c.add(got, path, month, day); err != nil {
		t.Fatal(err)
	}
	return got
}

// wholeSpent reads paths whole (addSpent): what a cached read must agree
// with.
func wholeSpent(t *testing.T, month, day time.Time, paths ...string) map[string][2]float64 {
	t.Helper()
	whole := map[string][2]float64{}
	for _, p := range paths {
		if err := addSpent(whole, p, month, day); err != nil {
			t.Fatal(err)
		}
	}
	return whole
}

// Operator review 58: a budget a reload adds counts what the key spent
// earlier in its window, as a restart on the same file does; a reload
// that keeps it adds nothing again, and one that takes it away and gives
// it back adds only what the key spent while it had none.
func TestReloadAddedBudgetCountsTheWindow(t *testing.T) {
	for _, state := range []string{"memory", "redis"} {
		t.Run(state, func(t *testing.T) { reloadAddedBudget(t, state) })
	}
}

// reloadAddedBudget runs TestReloadAddedBudgetCountsTheWindow on state
// memory, or redis (hostile 58b: there the window's counter still holds
// what it counted while the key had its budget, and the given-back budget
// counted the log's whole window on top of it).
func reloadAddedBudget(t *testing.T, state string) {
	spend, yaml, a := budgetReloadSetup(t, state)
	month := func(cfg *config.Config) float64 {
		if err := a.Reload(cfg); err != nil {
			t.Fatal(err)
		}
		return standing(t, a, &cfg.Clients[0], "usd_per_month")
	}
	budget := ", budget: {usd_per_month: 0.3}"
	if got := month(yaml(budget)); got != 0.35 {
		t.Fatalf("the reload that added the budget: month $%v, want the $0.35 spent before it", got)
	}
	if got := month(yaml(budget)); got != 0.35 {
		t.Errorf("a reload that kept the budget: month $%v, want $0.35", got)
	}
	month(yaml(""))
	spend(0.1) // spent while it had no budget
	if got := month(yaml(budget)); got < 0.449 || got > 0.451 {
		t.Errorf("the budget taken away and given back: month $%v, want $0.45", got)
	}
	if state == "redis" {
		time.Sleep(epochEvery + time.Second)
		if got := standing(t, a, &yaml(budget).Clients[0], "usd_per_month"); got < 0.449 || got > 0.451 {
			t.Errorf("after an epoch check: month $%v, want $0.45", got)
		}
	}
}

// budgetReloadSetup starts an App on state (memory or redis) whose decision
// log says team-c, a key without a budget, spent $0.35 this month before
// the start: spend spends as a request of team-c's ending now does (the
// server's spend, under the key of the configuration served), yaml is the
// configuration with team-c's budget mapping (", budget: {…}", or "").
func budgetReloadSetup(t *testing.T, state string) (spend func(float64), yaml func(string) *config.Config, a *App) {
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	now := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	write := func(usd float64) {
		f, err := os.OpenFile(log, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, `{"id":"x","time":%q,"client":"team-c","attempts":[{"billable":true,"cost_usd":%v}]}`+"\n", now, usd)
		f.Close()
	}
	stateLine := ""
	if state == "redis" {
		stateLine = `state: {store: redis, url: "` + redistest.Start(t).URL() + `"}` + "\n"
	}
	yaml = func(budget string) *config.Config {
		cfg, err := config.Parse("test.yaml", []byte(stateLine+`decisions: {path: "`+log+`"}
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
	spend = func(usd float64) {
		a.limits.Spend(context.Background(), &a.Server.Current().Config.Clients[0], 0, usd)
	}
	return spend, yaml, a
}

// Operator review 60: with state redis, a budget a reload gave a key, and
// Redis lost a few seconds later (restarted empty before the next epoch
// check), lost the key's earlier spend for good: the first marker written
// after the loss said the budget was new (the reload's own share, added
// before the loss, was taken as still there), so nothing was given back.
// The reload now writes the key's marker at once.
func TestReloadAddedBudgetThenRedisLostKeepsTheSpend(t *testing.T) {
	_, yaml, a := budgetReloadSetup(t, "redis")
	cfg := yaml(", budget: {usd_per_month: 5}")
	if err := a.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	if got := standing(t, a, &cfg.Clients[0], "usd_per_month"); got != 0.35 {
		t.Fatalf("after the reload: $%v, want the log's $0.35", got)
	}
	if err := a.rdb.FlushAll(context.Background()).Err(); err != nil { // Redis restarted empty
		t.Fatal(err)
	}
	time.Sleep(epochEvery + time.Second)
	if got := standing(t, a, &cfg.Clients[0], "usd_per_month"); got < 0.349 || got > 0.351 {
		t.Errorf("after Redis came back empty: $%v, want the log's $0.35 given back", got)
	}
}
