package app

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/redistest"
)

// Operator review 68e: a fleet started on a new Redis writes each budgeted
// key's marker at once, recording the $0 Redis holds then. The key spends
// (counted in Redis and in the decision log), and the replica restarts a few
// minutes later, Redis untouched. The restarted replica judged the marker
// again, new to it: the $0 it recorded was less than its log's month, so it
// read Redis as having lost the spend, added the log's share once more (the
// key's day and month doubled: $0.0037 read $0.0075 live) and warned
// "Redis had lost these keys' spend" of a Redis that lost nothing. What the
// marker recorded is compared with the requests that ended before it was
// written; what was spent since is in Redis already.
func TestEpochRestartAfterSpendOnAnIntactRedisAddsNothing_operator68e(t *testing.T) {
	rs := redistest.Start(t) // new and empty: the fleet's first start
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	if err := os.WriteFile(log, nil, 0o644); err != nil {
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
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	rdb := rs.Client(t)
	for end := time.Now().Add(5 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if n, _ := rdb.Exists(context.Background(), epochKey("team-a")).Result(); n == 1 {
			break
		}
		if time.Now().After(end) {
			t.Fatal("no marker written")
		}
	}
	// A request served after the marker: counted in Redis, then logged.
	time.Sleep(1100 * time.Millisecond) // the marker records whole seconds
	a.limits.Spend(context.Background(), &cfg.Clients[0], 100, 2)
	f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
	fmt.Fprintf(f, `{"id":"y","time":%q,"client":"team-a","ms":1,"attempts":[{"billable":true,"cost_usd":2}]}`+"\n", time.Now().UTC().Format(time.RFC3339Nano))
	f.Close()
	a.Close(context.Background())

	var logged syncBuf
	b, err := New(cfg, Options{Logger: slog.New(slog.NewTextHandler(&logged, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	time.Sleep(epochEvery + time.Second) // the restarted replica's checks
	if got := monthUsed(t, b, cfg); got != 2 {
		t.Errorf("a replica restarted beside an intact Redis: team-a's month reads $%v, want the $2 it spent", got)
	}
	if s := logged.String(); strings.Contains(s, "had lost") {
		t.Errorf("a Redis that lost nothing was said to have lost the spend: %s", s)
	}
}
