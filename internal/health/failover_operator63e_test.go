package health

import (
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
)

// foundWithin is how soon after a replica's promotion a Detour replica under
// traffic must share state again (docs/scale.md, "A cluster master or the
// Sentinel primary dies"): at worst the second retry after it, the first
// having had the slot map read again (retries are a second apart; measured
// 1.2–2.0 s), with room for a loaded machine. Before, 53 s.
const foundWithin = 4 * time.Second

// Operator review 63e. A Redis Cluster master dies and the cluster promotes
// its replica in 3–4 s (here about nodeTimeout, 5 s), on another port.
// go-redis's cluster client reads the slot map again only after a MOVED,
// ASK or READONLY reply, or every 60 s (ClusterStateReloadInterval); a
// refused connection to the dead master's address teaches it nothing, so a
// replica went on sending that master's slots there and said shared:false
// on /v1/health for 25–60 s after the promotion, paging and counting alone.
// The clusters of the other tests have no replicas (a killed master is
// restarted on its own port), so promotion was never exercised.
func TestOperator63eAPromotedReplicaIsFoundWithinSeconds(t *testing.T) {
	cl := redistest.StartClusterWithReplicas(t, 3)
	rc := RedisConfig{Cluster: cl.URLs()}
	const prefix = "op63e:"
	k1, k2 := Key{"claude", "anthropic"}, Key{"claude-haiku", "anthropic"}
	keys := []Key{k1, k2}
	var log logBuf
	s := newStore(t, rc, prefix, time.Now, &log)
	tr := New(s, Settings{}, keys, time.Now)
	tr.Report(ctx, k1, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	key := prefix + tagOf("anthropic") + "acct" // every record of the provider is in this slot
	dead := cl.MasterOf(t, key)
	// What the master holds has reached its replica before the kill
	// (replication is asynchronous: docs/scale.md).
	mc := redis.NewClient(&redis.Options{Addr: dead.Addr()})
	if n, err := mc.Do(ctx, "WAIT", 1, 5000).Int(); err != nil || n != 1 {
		t.Fatalf("WAIT for the replica: %d, %v", n, err)
	}
	mc.Close()

	// A replica under traffic: a View every 100ms, as requests and the
	// load balancer's health checks (GET /v1/health) make.
	var mu sync.Mutex
	var cutAt, backAt time.Time
	stop, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			tr.View(ctx, keys)
			sh := tr.Sharing()
			mu.Lock()
			switch now := time.Now(); {
			case !sh.Shared && cutAt.IsZero():
				cutAt = now
			case sh.Shared && !cutAt.IsZero() && backAt.IsZero():
				backAt = now
			}
			mu.Unlock()
		}
	}()
	defer func() { close(stop); <-stopped }()
	seen := func() (cut, back time.Time) {
		mu.Lock()
		defer mu.Unlock()
		return cutAt, backAt
	}

	killed := time.Now()
	dead.Kill()
	for c, _ := seen(); c.IsZero(); c, _ = seen() {
		if time.Since(killed) > 10*time.Second { // a failure guard
			t.Fatal("the replica never noticed the master's death")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Learned while cut off: journaled, written to the promoted master.
	tr.Report(ctx, k2, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})

	promoted, at := cl.WaitPromoted(t, key, dead)
	t.Logf("master %s killed; replica %s promoted %v later", dead.Addr(), promoted.Addr(), at.Sub(killed).Round(100*time.Millisecond))
	for _, back := seen(); back.IsZero(); _, back = seen() {
		if time.Since(at) > foundWithin {
			t.Fatalf("still serving from local state %v after the promotion (shared=%v); want shared again within %v",
				time.Since(at).Round(100*time.Millisecond), s.Shared(), foundWithin)
		}
		time.Sleep(20 * time.Millisecond)
	}
	_, back := seen()
	t.Logf("shared again %v after the promotion", back.Sub(at).Round(10*time.Millisecond))

	// What was shared before the kill survived on the promoted replica, and
	// what this replica learned while cut off reached it: a replica started
	// now reads both.
	b := New(newStore(t, rc, prefix, time.Now, nil), Settings{}, keys, time.Now)
	if st := b.View(ctx, keys); st[0].Phase != Cooling || st[1].Phase != Cooling {
		t.Errorf("a new replica reads %+v; want both endpoints cooling (one from before the kill, one journaled)", st)
	}
}
