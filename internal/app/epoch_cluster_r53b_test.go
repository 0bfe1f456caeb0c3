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

// review53b: in a Redis Cluster the marker (detour:state:epoch, no hash
// tag) and a client key's counters ({client:<name>} tag) live in
// different slots, usually on different masters. docs/scale.md's "failed
// over to an empty replica" in a cluster is one shard: the shard holding
// team-a's counters comes back empty while the marker's shard keeps it.
// The watcher reads the marker only, sees nothing new, and team-a's month
// silently reads $0 again (its budget given back), the exact case epoch.go
// exists for. Simulated by FLUSHALL on the counters' master (what a master
// restarted without persistence, or a failover to an empty replica,
// leaves).
func TestR53bEpochClusterShardLostUnnoticed(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	log := filepath.Join(t.TempDir(), "decisions.jsonl")
	os.WriteFile(log, fmt.Appendf(nil, `{"id":"x","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":3}]}`+"\n", time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)), 0o644)
	seeds := ""
	for i, u := range c.URLs() {
		if i > 0 {
			seeds += ", "
		}
		seeds += `"` + u + `"`
	}
	cfg, err := config.Parse("test.yaml", []byte(`state: {store: redis, cluster: [`+seeds+`]}
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
	defer a.Close(context.Background())
	if got := monthUsedBy(t, a, cfg, 3); got != 3 {
		t.Fatalf("empty cluster at start: month $%v, want the log's $3", got)
	}
	ctx := context.Background()
	cc := c.Client(t)
	now := time.Now().UTC()
	counter := "detour:{client:team-a}:usd:m:" + now.Format("200601")
	mc, err := cc.MasterForKey(ctx, counter)
	if err != nil {
		t.Fatal(err)
	}
	me, err := cc.MasterForKey(ctx, epochKey("team-a"))
	if err != nil {
		t.Fatal(err)
	}
	if mc.Options().Addr != me.Options().Addr { // the marker lives in the slot of its key's counters
		t.Fatalf("team-a's marker on %s, its counters on %s", me.Options().Addr, mc.Options().Addr)
	}
	if n, _ := mc.Exists(ctx, counter).Result(); n != 1 {
		keys, _ := mc.Keys(ctx, "*").Result()
		t.Fatalf("counter %s not on %s: %v", counter, mc.Options().Addr, keys)
	}
	if err := mc.FlushAll(ctx).Err(); err != nil { // that shard came back empty
		t.Fatal(err)
	}
	time.Sleep(2*epochEvery + time.Second)
	if got := monthUsed(t, a, cfg); got != 3 {
		t.Errorf("the cluster shard holding team-a's counters came back empty (the marker's shard kept it): after %v team-a's month reads $%v, want the log's $3 (its budget given back, silently)", 2*epochEvery+time.Second, got)
	}
}
