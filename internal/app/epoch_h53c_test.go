package app

// Hostile 53c: the Redis epoch watcher (epoch.go) attacked by a careless
// operator and a Redis that misbehaves. Each test failed against the
// watcher's first version.

import (
	"context"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// A replica that starts while its Redis is down (a host reboot, a compose
// or pod restart where Detour comes up before redis-server, whose data did
// not survive because it persists nothing) never restores its log's share:
// start() returns on the error with seen "", and the first check() that
// reaches the now-empty Redis writes the marker, finds seen "" and records
// it silently. The very case epoch.go exists for ("a restart gave every key
// its budget back, silently") is back whenever Redis is slower to come up
// than Detour. Expected: the first successful read after a failed start is
// treated as start is (marker created and no spend in Redis: restore), so
// team-a's month reads the log's $3.
func TestH53cEpochRedisDownAtStartNeverRestores(t *testing.T) {
	rs := redistest.New(t) // not running yet: Detour starts first
	cfg := epochCfg(t, rs)
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	rs.Start(t) // Redis comes up, empty (it persists nothing)
	deadline := time.Now().Add(3*epochEvery + 2*time.Second)
	var got float64
	for time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		if got = monthUsed(t, a, cfg); got == 3 {
			return
		}
	}
	t.Errorf("Detour started before its (empty) Redis came up: after %v team-a's month reads $%v, want the decision log's $3 (its budget was given back, silently)", 3*epochEvery+2*time.Second, got)
}

// The marker alone going (Redis's maxmemory-policy allkeys-random or
// allkeys-lru evicting it under memory pressure, or an operator's DEL of
// what looks like a stale key) while the counters stay is read as "Redis
// lost Detour's state": every replica adds its whole month's share again
// on top of counters that still hold it, and every budgeted key's month
// doubles (here $3 becomes $6: team-a is refused at half its budget).
// Expected: spend still counted in Redis is not added again (start()
// already asks spentInRedis for exactly this reason; check() does not).
func TestH53cEpochMarkerGoneCountersKeptDoubles(t *testing.T) {
	rs := redistest.Start(t)
	cfg := epochCfg(t, rs)
	a, err := New(cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	if got := monthUsedBy(t, a, cfg, 3); got != 3 {
		t.Fatalf("empty Redis at start: month $%v, want $3", got)
	}
	rdb := rs.Client(t)
	if err := rdb.Del(context.Background(), epochKey("team-a")).Err(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(2*epochEvery + time.Second) // at least one check reads the missing marker
	if got := monthUsed(t, a, cfg); got != 3 {
		t.Errorf("only the marker went (counters kept): team-a's month reads $%v, want $3 (the log's share added again on top of spend still in Redis)", got)
	}
}

// Decision logs are per replica, and each replica is to add its own share
// (epoch.go). But only the replica whose SetNX writes the marker restores
// at start: when the whole fleet comes up on an empty Redis (a compose
// `down`/`up`, a cluster or namespace restart, Redis and every replica
// rescheduled together), the first replica restores its share and every
// other finds a marker it did not write, takes it as "Redis holds our
// state", and restores nothing. Their shares of the month vanish: with N
// replicas, about (N-1)/N of every key's spend. Here two replicas, $3 each
// in their own logs: the month reads $3, want $6.
func TestH53cEpochFleetRestartRestoresOneShareOnly(t *testing.T) {
	rs := redistest.Start(t) // empty: it lost everything while the fleet was down
	cfgA, cfgB := epochCfg(t, rs), epochCfg(t, rs)
	a, err := New(cfgA, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close(context.Background())
	b, err := New(cfgB, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close(context.Background())
	time.Sleep(epochEvery + time.Second) // a check of each, too
	if got := monthUsed(t, b, cfgB); got != 6 {
		t.Errorf("two replicas ($3 each in their decision logs) started on an empty Redis: team-a's month reads $%v, want $6 (replica B's share was never restored)", got)
	}
}
