package health

import (
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Operator review 63e. With alerts' min_interval 60s, a replica paged
// "anthropic auth" at 09:56:35 while Redis was unreachable (a local claim)
// and again at 09:57:06, Redis back: a claim asked Redis alone (SET NX),
// never the local claim still running. docs/scale.md, "Alerts": one page
// per provider and class per min_interval, and during an outage one per
// replica. A claim made during the outage holds when Redis returns, and is
// written there for the rest of its time, so no replica pages again in it
// unless an operator's reset rearms the page; one given back during the
// outage (its page not delivered) is not.
func TestOperator63eAClaimMadeDuringAnOutageHoldsAfterIt(t *testing.T) {
	srv := redistest.Start(t)
	cut := redistest.StartProxy(t, srv.Addr())
	c := newClock()
	const prefix = "cl63e:"
	sa := newStore(t, RedisConfig{URL: cut.URL()}, prefix, c.Now, nil) // replica A, through a link the test cuts
	sb := newRedisStore(t, srv, prefix, c.Now, nil)                    // replica B
	const paged, released = "alert:anthropic:auth", "alert:openai:quota"
	sa.Load(ctx, []string{"x"}) // A has talked to Redis

	cut.Cut()
	if !sa.Claim(ctx, paged, time.Minute) {
		t.Fatal("A cut off could not claim locally")
	}
	if sa.Shared() {
		t.Fatal("A still says shared while cut off")
	}
	if !sa.Claim(ctx, released, time.Minute) {
		t.Fatal("A cut off could not claim the second key locally")
	}
	sa.Release(ctx, released) // its page was not delivered

	c.Advance(31 * time.Second)
	cut.Heal()
	sa.Load(ctx, []string{"x"}) // A's first operation with Redis back: a request's read
	if !sa.Shared() {
		t.Fatal("A did not resume sharing")
	}
	if sb.Claim(ctx, paged, time.Minute) {
		t.Error("B won the claim A made 31s ago: A's page is unknown to the fleet, and B pages again")
	}
	if sa.Claim(ctx, paged, time.Minute) {
		t.Error("A won the claim it made 31s ago: A pages twice in its minute")
	}
	ttl, err := srv.Client(t).PTTL(ctx, prefix+"once:"+paged).Result()
	if err != nil || ttl <= 28*time.Second || ttl > 29*time.Second {
		t.Errorf("the claim in Redis lasts %v (%v); want the rest of A's minute, 29s", ttl, err)
	}
	sb.Forget(ctx, paged) // an operator's reset on B rearms the page on every replica
	if !sa.Claim(ctx, paged, time.Minute) {
		t.Error("after a reset on B, A's claim of the outage still holds: the reset did not rearm the page")
	}
	if !sa.Claim(ctx, released, time.Minute) {
		t.Error("a claim given back during the outage came back with Redis")
	}
}

// Review 63l. Many callers write one held claim back at once (the
// write-back as Redis returns, beside a storm of verdicts asking whether
// the claim holds): the claim stays in Redis, and no replica wins it.
// Two writers at once used to write two tokens, and the second, finding
// the claim no longer held, took it for a give-back and deleted the live
// one.
func TestReview63lConcurrentWriteBacksKeepTheClaim(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	const prefix, key = "cl63l:", "alert:anthropic:auth"
	sa := newRedisStore(t, srv, prefix, c.Now, nil)
	sb := newRedisStore(t, srv, prefix, c.Now, nil)
	sa.Load(ctx, []string{"x"})
	for round := range 20 {
		sa.jmu.Lock()
		sa.held[key] = c.Now().Add(time.Minute)
		sa.jmu.Unlock()
		var wg sync.WaitGroup
		for range 8 {
			wg.Add(1)
			go func() { defer wg.Done(); sa.writeClaim(ctx, key) }()
		}
		wg.Wait()
		if n, err := srv.Client(t).Exists(ctx, prefix+"once:"+key).Result(); err != nil || n != 1 {
			t.Fatalf("round %d: the claim is gone from Redis (%v)", round, err)
		}
		if sb.Claim(ctx, key, time.Minute) {
			t.Fatalf("round %d: another replica won a claim this one holds", round)
		}
		sa.Forget(ctx, key)
	}
}
