package app

// review53b: the epoch watcher reads the whole month's decision log inside
// the context that bounds one Redis operation (state.timeout, 500 ms by
// default). A replica whose log takes longer than that to read never
// writes the marker: the SetNX after lost() runs on an expired context,
// check() returns on the error, and the next check 5 s later reads the
// whole log again. The budgets are never restored, and every replica
// re-reads its month log every 5 s for as long as the marker is missing.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/redis/go-redis/v9"
)

func TestR53bEpochBigLogNeverWritesMarker(t *testing.T) {
	rs := redistest.Start(t)
	cfg := epochCfg(t, rs)
	// A busy replica's month: n records of team-a at $0.00001 each after the
	// epochCfg's $3 one (a record as the gateway writes it, abridged).
	var b bytes.Buffer
	ts := time.Now().UTC().Add(-time.Minute).Format(time.RFC3339Nano)
	const n = 100000 // 31 MB: more than a second to read, past the 1 s Redis timeout (state.timeout 0), and more under -race
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"d%08d","time":%q,"route":"m","strategy":"failover","api":"chat","client":"team-a","attempts":[{"target":"t","provider":"p","endpoint":"p/m","status":200,"class":"ok","billable":true,"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160},"cost_usd":0.00001}],"outcome":"ok"}`+"\n", i, ts)
	}
	f, err := os.OpenFile(cfg.Decisions.Path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(b.Bytes())
	f.Close()
	t.Logf("log: %d MB", b.Len()>>20)
	start := time.Now()
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	t.Logf("New took %v (state.timeout %v)", time.Since(start), cfg.State.Timeout)
	// The log is read before the marker is written, outside any Redis
	// deadline: however long it takes (seconds, more under the race
	// detector), a marker follows. Polled, never timed.
	rdb := rs.Client(t)
	m, err := rdb.Get(context.Background(), epochKey("team-a")).Result()
	for end := time.Now().Add(90 * time.Second); errors.Is(err, redis.Nil) && time.Now().Before(end); {
		time.Sleep(250 * time.Millisecond)
		m, err = rdb.Get(context.Background(), epochKey("team-a")).Result()
	}
	if errors.Is(err, redis.Nil) {
		t.Errorf("a replica with a %d MB month log on an empty Redis: no marker is written (the log read inside the %v Redis-operation timeout, the SetNX then failing), and team-a's month reads $%v, want $%v", b.Len()>>20, cfg.State.Timeout, monthUsed(t, a, cfg), 3+float64(n)*0.00001)
	} else if err != nil {
		t.Fatal(err)
	} else {
		t.Logf("marker %s; month $%v", m, monthUsed(t, a, cfg))
	}
}

// review53b: the verdict is written by whichever replica first finds the
// marker missing, judged against its own log alone. A replica whose log
// holds no spend this month (a replica just added by an autoscaler, one
// whose pod lost its ephemeral disk, one that logs decisions to stdout,
// decisions.path "-") finds the spend the fleet served in the seconds
// since Redis came back empty, and writes "kept": every other replica then
// restores nothing. Here Redis came back empty and counted $0.50 of new
// spend; replica B (empty log) reads the missing marker first, replica A
// (its log: $3) second. The month reads $0.50, want $3.50.
func TestR53bEpochEmptyLogReplicaVotesKept(t *testing.T) {
	rs := redistest.Start(t)
	// Redis restarted empty, then counted $0.50 of requests served since,
	// before any replica's check: seeded by a replica whose log holds
	// exactly that, whose marker is then removed (the restart's state).
	seed := epochCfg(t, rs)
	os.WriteFile(seed.Decisions.Path, fmt.Appendf(nil, `{"id":"s","time":%q,"client":"team-a","attempts":[{"billable":true,"cost_usd":0.5}]}`+"\n", time.Now().UTC().Add(-time.Second).Format(time.RFC3339Nano)), 0o644)
	s, err := New(seed, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := monthUsedBy(t, s, seed, 0.5); got != 0.5 {
		t.Fatalf("seed: $%v", got)
	}
	s.Close(context.Background())
	rdb := rs.Client(t)
	rdb.Del(context.Background(), epochKey("team-a"))

	cfgB := epochCfg(t, rs)
	os.WriteFile(cfgB.Decisions.Path, nil, 0o644) // a new replica: nothing logged yet
	b, err := New(cfgB, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	m, _ := rdb.Get(context.Background(), epochKey("team-a")).Result()
	cfgA := epochCfg(t, rs) // its log: $3 this month
	a, err := New(cfgA, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if got := monthUsedBy(t, a, cfgA, 3.5); got != 3.5 {
		t.Errorf("Redis came back empty and counted $0.50 since; a replica with an empty log wrote the marker %q first: team-a's month reads $%v, want $3.50 (replica A's $3 is never restored)", m, got)
	}
}

// review53b: the same context also bounds lost()'s one Standings round
// trip per budgeted key, made one after another: a gateway with many
// budgeted keys (one per developer, per tenant) on a Redis a millisecond
// away exceeds it as surely as a big log does, and never writes the
// marker. Here 1,500 budgeted keys on a Redis 1 ms away (another
// availability zone, a managed Redis), an empty log.
func TestR53bEpochManyKeysNeverWritesMarker(t *testing.T) {
	rs := redistest.Start(t)
	tap := redistest.StartTap(t, rs.Addr())
	tap.Latency(time.Millisecond)
	log := t.TempDir() + "/decisions.jsonl"
	os.WriteFile(log, nil, 0o644)
	var b bytes.Buffer
	fmt.Fprintf(&b, "state: {store: redis, url: %q}\ndecisions: {path: %q}\nclient_keys:\n", tap.URL(), log)
	for i := 0; i < 1500; i++ {
		fmt.Fprintf(&b, "  - {name: dev-%05d, key: sk-dev-%05d-0123456789, budget: {usd_per_month: 50}}\n", i, i)
	}
	b.WriteString("providers:\n  - {name: p, dialect: openai, base_url: \"http://127.0.0.1:9/v1\", api_key: sk-test}\ntargets:\n  - {name: t, model: m, providers: [p]}\n")
	cfg, err := config.Parse("test.yaml", b.Bytes(), nil)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	t.Logf("New took %v", time.Since(start))
	time.Sleep(3*epochEvery + time.Second) // a first start writes 1,500 markers, in the background
	m, err := rs.Client(t).Get(context.Background(), epochKey("dev-01499")).Result()
	if err != nil {
		t.Errorf("1,500 budgeted keys on an empty Redis 1 ms away: no marker after start (%v): lost() made one round trip per key inside the one-operation timeout", err)
	} else {
		t.Logf("marker %s", m)
	}
}
