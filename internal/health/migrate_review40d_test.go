package health

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
)

// A Redis Cluster being resharded (redis-cli --cluster reshard, rebalance,
// a node added) moves each slot's keys one by one; meanwhile a key already
// moved is answered with ASK by its old master. A model found gone on one
// replica in that moment must still cool it, there at once and on every
// replica once the slot has moved: as first built, go-redis's cluster WATCH
// gave up on the redirects and returned no error without running the
// transaction, and the store took that for a write: the verdict was lost
// without a word, and the replica's own view never cooled.
func TestReview40dAVerdictDuringASlotMigrationIsNotLost(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	c := newClock()
	var logA logBuf
	p := uniquePrefix("mig")
	rc := RedisConfig{Cluster: cl.URLs()}
	a := New(newStore(t, rc, p, c.Now, &logA), Settings{}, all3, c.Now)
	b := New(newStore(t, rc, p, c.Now, nil), Settings{}, all3, c.Now)
	a.Report(ctx, epA, fail("server_error")) // both of epA's keys exist, on one master
	a.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond})
	a.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Minute}) // another provider's account
	b.View(ctx, all3)

	epKey, acctKey := p+"{anthropic}:ep:claude", p+"{anthropic}:acct"
	a.Report(ctx, epA, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Second})
	c.Advance(2 * time.Second)
	a.Report(ctx, epA, Report{OK: true}) // the account closed again: its key stays
	src := cl.MasterOf(t, epKey)
	var dst *redistest.Server
	for _, n := range cl.Nodes {
		if n != src {
			dst = n
			break
		}
	}
	sc, dc := plainClient(t, src), plainClient(t, dst)
	slot, err := sc.ClusterKeySlot(ctx, epKey).Result()
	must(t, err)
	srcID, dstID := nodeID(t, sc), nodeID(t, dc)
	// The slot moves as redis-cli moves it: importing, migrating, its keys
	// one MIGRATE at a time, then owned by the new master.
	must(t, dc.Do(ctx, "CLUSTER", "SETSLOT", slot, "IMPORTING", srcID).Err())
	must(t, sc.Do(ctx, "CLUSTER", "SETSLOT", slot, "MIGRATING", dstID).Err())
	host, port, _ := strings.Cut(dst.Addr(), ":")
	must(t, sc.Do(ctx, "MIGRATE", host, port, "", 0, 5000, "KEYS", epKey).Err())

	// Midway: the endpoint's key has moved, the account's has not.
	got := a.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour})
	if len(got) != 1 || got[0].To != Cooling {
		t.Errorf("a model found gone while its slot moves: transitions %v, want healthy→cooling", got)
	}
	if st := view1(a, epA); st.Phase != Cooling {
		t.Errorf("the replica that found the model gone sees it %v (%+v), want cooling", st.Phase, st)
	}

	// The move ends; the replica's next operation a second later writes
	// what it learned back, and the other replica sees it.
	must(t, sc.Do(ctx, "MIGRATE", host, port, "", 0, 5000, "KEYS", acctKey).Err())
	for _, n := range cl.Nodes {
		nc := plainClient(t, n)
		must(t, nc.Do(ctx, "CLUSTER", "SETSLOT", slot, "NODE", dstID).Err())
	}
	c.Advance(2 * time.Second)
	a.View(ctx, all3)
	if st := view1(b, epA); st.Phase != Cooling || st.LastClass != "unavailable" {
		t.Errorf("after the move the other replica sees %+v, want cooling for unavailable", st)
	}
	if st := view1(b, epC); st.Phase != Cooling {
		t.Errorf("another provider's cooling account reads %v on the other replica", st.Phase)
	}
	t.Logf("replica a's log:\n%s", logA.String())
}

func plainClient(t *testing.T, s *redistest.Server) *redis.Client {
	t.Helper()
	rc := redis.NewClient(&redis.Options{Addr: s.Addr(), MaxRetries: -1})
	t.Cleanup(func() { rc.Close() })
	return rc
}

func nodeID(t *testing.T, rc *redis.Client) string {
	t.Helper()
	id, err := rc.Do(context.Background(), "CLUSTER", "MYID").Text()
	must(t, err)
	return id
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
