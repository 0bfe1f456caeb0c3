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

// hostile58b: TestReloadAddedBudgetCountsTheWindow's last step (a budget
// taken away and given back) with state: redis. restoreAddedBudgets
// subtracts what the counter already holds only when a.rdb == nil; with
// Redis the window's counter still holds what it counted while the key
// had its budget (a key without a budget stops counting, its counter is
// not deleted), and the reload added the log's whole window on top of it
// (a gap kept by the replica now adds only what was spent in between).
func TestHostile58bRedisBudgetTakenAwayAndGivenBackCountsTwice(t *testing.T) {
	rs := redistest.Start(t)
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
	yaml := func(budget string) *config.Config {
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
	a, err := New(yaml(""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	month := func(cfg *config.Config) float64 {
		if err := a.Reload(cfg); err != nil {
			t.Fatal(err)
		}
		return standing(t, a, &cfg.Clients[0], "usd_per_month")
	}
	budget := ", budget: {usd_per_month: 1}"
	if got := month(yaml(budget)); got != 0.35 {
		t.Fatalf("the reload that added the budget: month $%v, want the $0.35 spent before it", got)
	}
	month(yaml(""))
	write(0.1) // spent while it had no budget
	got := month(yaml(budget))
	if got < 0.449 || got > 0.451 {
		t.Errorf("state redis, the budget taken away and given back: month $%v, want $0.45 (the log's $0.35 added again on a counter that still holds it)", got)
	}
	time.Sleep(epochEvery + time.Second)
	if got := standing(t, a, &yaml(budget).Clients[0], "usd_per_month"); got < 0.449 || got > 0.451 {
		t.Errorf("after an epoch check: month $%v, want $0.45", got)
	}
}

// hostile58b: deploy.md says "`copytruncate` works too". After a
// copytruncate (or an operator's `: > decisions.jsonl`) the file is the
// same file (same inode), and once the writer has appended past the offset
// the cache last read through, the cache takes the old file's spend as
// still there and reads the new records from the middle: the truncated
// spend is counted twice (it is also in decisions.jsonl.1) and the new
// records before the old offset are never counted.
func TestHostile58bSpentCacheAfterCopytruncate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "decisions.jsonl")
	now := time.Now().UTC()
	month := time.Date(now.Year(), now.Month(), 1, 0, 0, 0, 0, time.UTC)
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	rec := func(usd float64) string {
		return fmt.Sprintf(`{"id":"x","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":%v}]}`+"\n", now.Format(time.RFC3339Nano), usd)
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
	appendTo(rec(1))
	got := map[string][2]float64{}
	if err := c.add(got, path, month, day); err != nil || got["team-a"][1] != 1 {
		t.Fatalf("first read: %v %v", got, err)
	}
	// logrotate copytruncate: copy, then truncate in place.
	b, _ := os.ReadFile(path)
	os.WriteFile(path+".1", b, 0o644)
	if err := os.Truncate(path, 0); err != nil {
		t.Fatal(err)
	}
	appendTo(rec(2) + rec(4))
	got = map[string][2]float64{}
	if err := c.add(got, path, month, day); err != nil {
		t.Fatal(err)
	}
	whole := map[string][2]float64{}
	addSpent(whole, path, month, day)
	if got["team-a"] != whole["team-a"] {
		t.Errorf("after a copytruncate the cached read of decisions.jsonl says team-a spent %v, the file holds %v ($2 + $4; the $1 is in decisions.jsonl.1 and is counted there too)", got["team-a"], whole["team-a"])
	}
}


