package limit

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/config"

	"github.com/detour-llm/detour/internal/health"
)

// warm opens a few pooled connections through the proxy, so a slowed
// flush is not held up by a new connection's handshake.
func (e *proxied) warm(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	e.p.Slow(100 * time.Millisecond) // each holds its connection meanwhile: three connections
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() {
			_, _ = e.rdb.Pipelined(ctx, func(p redis.Pipeliner) error { p.Get(ctx, "warm"); return nil })
		})
	}
	wg.Wait()
	e.p.Slow(0)
}

// spentInOutage has spender(0) spend usd while Redis is cut off, then
// heals the link and warms the client's connections.
func (e *proxied) spentInOutage(t *testing.T, usd float64) {
	t.Helper()
	e.p.Cut()
	e.l.Spend(context.Background(), spender(0), 0, usd)
	e.p.Heal()
	e.warm(t)
}

// lateFlush runs one flush (through an admission of spender(0)) whose
// replies come back after the op timeout: Redis runs its adds, the
// replica counts the flush as failed. During it, during (if not nil) runs
// while the flush is in flight.
func (e *proxied) lateFlush(t *testing.T, during func()) {
	t.Helper()
	e.p.Slow(700 * time.Millisecond) // past the default 500ms op timeout
	e.clk.Advance(2 * time.Second)   // past the retry interval
	var wg sync.WaitGroup
	wg.Go(func() { e.l.Admit(context.Background(), spender(0)) })
	time.Sleep(200 * time.Millisecond) // the flush has taken the pending spend and sent it
	if during != nil {
		during()
	}
	wg.Wait()
	e.p.Slow(0)
	time.Sleep(300 * time.Millisecond) // the late replies drain
}

// flushAll lets the next request flush what is pending, Redis answering
// at once again. A pooled connection the outage closed may fail the
// first try (the client does not retry: a script's add is not sent
// twice); the request is then served locally and the next one, after the
// retry interval, flushes. Three tries are allowed.
func (e *proxied) flushAll(t *testing.T) {
	t.Helper()
	var n int
	for range 3 {
		e.clk.Advance(2 * time.Second)
		e.l.Admit(context.Background(), spender(0))
		e.r.mu.Lock()
		n = len(e.r.pending)
		e.r.mu.Unlock()
		if n == 0 {
			return
		}
	}
	t.Fatalf("%d counters still pending after Redis answered", n)
}

// A flush whose replies come too late (a slow link, a Redis stalled by a
// fork or a slow fsync) has still run on Redis; the replica counts it as
// failed and sends the spend again with the next flush. Each add carries
// the flush id of its pending counter, and Redis adds an id's amount only
// once: the outage's spend lands once, not twice. (Found by review 7.)
func TestRedisLateFlushCountsOnce(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	ctx := context.Background()

	e.p.Cut() // the outage: three clients spend $0.01 each, counted locally
	for i := range 3 {
		e.l.Spend(ctx, spender(i), 0, 0.01)
	}
	e.p.Heal()
	e.warm(t)
	e.lateFlush(t, nil)
	direct := e.rs.Client(t)
	first := direct.Get(ctx, dayKey(0)).Val()
	if first != "10000" {
		t.Fatalf("the late flush did not run on Redis: %s = %q", dayKey(0), first)
	}
	left := 14*time.Hour + time.Minute - 2*time.Second
	for i := range 3 {
		// The late flush's marker expires with the counter's window, not
		// before: a retry within the window finds it.
		ms, err := direct.Keys(ctx, dayKey(i)+":flush:*").Result()
		if err != nil || len(ms) != 1 {
			t.Errorf("markers of %s: %v (%v), want one", dayKey(i), ms, err)
			continue
		}
		if pttl := direct.PTTL(ctx, ms[0]).Val(); pttl < left-30*time.Second || pttl > left+2*time.Second {
			t.Errorf("marker %s expires in %v, want %v", ms[0], pttl, left)
		}
	}
	e.flushAll(t) // sends the kept spend again
	for i := range 3 {
		wantCounter(t, direct, dayKey(i), 10000, left)
		wantNoMarkers(t, direct, dayKey(i), nil) // landed: the marker has nothing left to guard
	}
}

// Spend counted while a flush is in flight, and spend counted after it
// failed, merges with the kept spend of the same counter: neither is lost
// when the flush did not land, nor added twice when it did.
func TestRedisSpendDuringLateFlush(t *testing.T) {
	for _, landed := range []bool{true, false} {
		e := newProxied(t, health.RedisConfig{})
		ctx := context.Background()
		e.p.Cut()
		e.l.Spend(ctx, spender(0), 0, 0.01)
		e.l.Spend(ctx, spender(1), 0, 0.02)
		e.p.Heal()
		e.warm(t)
		if landed {
			// The flush runs on Redis; its replies come too late.
			e.lateFlush(t, func() {
				e.l.Spend(ctx, spender(0), 0, 0.04) // in flight: counted locally, pending
				e.l.Spend(ctx, spender(2), 0, 0.08)
			})
		} else {
			// The flush never reaches Redis.
			e.p.Cut()
			e.clk.Advance(2 * time.Second)
			e.l.Admit(ctx, spender(0))
			e.l.Spend(ctx, spender(0), 0, 0.04)
			e.l.Spend(ctx, spender(2), 0, 0.08)
			e.p.Heal()
		}
		e.l.Spend(ctx, spender(1), 0, 0.16) // after the failed flush, before the next
		e.flushAll(t)
		direct := e.rs.Client(t)
		left := 14*time.Hour + time.Minute - 4*time.Second
		wantCounter(t, direct, dayKey(0), 50000, left)
		wantCounter(t, direct, dayKey(1), 180000, left)
		wantCounter(t, direct, dayKey(2), 80000, left)
		// Nothing is left: a later flush adds nothing.
		e.flushAll(t)
		wantCounter(t, direct, dayKey(0), 50000, left)
		if t.Failed() {
			t.Fatalf("the flush landed: %v", landed)
		}
	}
}

// One flush at a time: a request that finds a flush in flight (its
// replies late) is served locally and starts no second flush, so a
// counter's spend is never split among flushes in flight; everything lands
// once, and the markers of shares that landed are removed.
func TestRedisOneFlushAtATime(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	ctx := context.Background()
	e.spentInOutage(t, 0.01)
	e.lateFlush(t, func() {
		e.l.Spend(ctx, spender(0), 0, 0.02) // pending, apart from the flush in flight
		e.clk.Advance(2 * time.Second)
		if r := e.l.Admit(ctx, spender(0)); r != nil { // served locally meanwhile
			t.Errorf("admit during a flush: %+v", r)
		}
		e.r.mu.Lock()
		n := len(e.r.pending["{client:team-00}:usd:d:20261201"].shares)
		e.r.mu.Unlock()
		if n != 0 {
			t.Errorf("a second flush took a share while one was in flight (%d)", n)
		}
	})
	e.l.Spend(ctx, spender(0), 0, 0.04)
	e.flushAll(t)
	direct := e.rs.Client(t)
	left := 14*time.Hour + time.Minute - 4*time.Second
	wantCounter(t, direct, dayKey(0), 70000, left)
	wantNoMarkers(t, direct, dayKey(0), nil)
	e.flushAll(t) // nothing is left to add
	wantCounter(t, direct, dayKey(0), 70000, left)
}

// wantNoMarkers waits until counter's flush markers are gone (they are
// removed in the background once their shares landed), calling between
// looks each (request) if it is not nil.
func wantNoMarkers(t *testing.T, rdb redis.UniversalClient, counter string, each func()) {
	t.Helper()
	var ms []string
	for range 100 {
		var err error
		if ms, err = rdb.Keys(context.Background(), counter+":flush:*").Result(); err == nil && len(ms) == 0 {
			return
		}
		if each != nil {
			each()
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Errorf("markers %v remain after their shares landed", ms)
}

// A flush's markers outlive it only until it knows its shares landed:
// ten outages of a monthly counter leave none behind once requests flow
// again, even when Redis went away again before a flush's delete of its
// markers ran (in CI it did: the delete failed and the marker stayed for
// the month).
func TestRedisMarkersGoOnceLanded(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	ctx := context.Background()
	k := key(config.ClientKey{Name: "team-00", Budget: config.Budget{USDPerMonth: 1000}})
	for range 10 {
		e.p.Cut()
		e.clk.Advance(2 * time.Second)
		e.l.Spend(ctx, k, 0, 0.01)
		e.p.Heal()
		e.flushAll(t)
	}
	direct := e.rs.Client(t)
	wantNoMarkers(t, direct, "detour:{client:team-00}:usd:m:202612", func() { e.l.Admit(ctx, k) })
	if got := direct.Get(ctx, "detour:{client:team-00}:usd:m:202612").Val(); got != "100000" {
		t.Errorf("the month's counter = %q, want 100000", got)
	}
}

// A flush that never reaches Redis (its write is held until the link
// drops), a request meanwhile served locally: the flush's share, kept for
// the next flush, is added then with what was spent meanwhile, once.
func TestRedisFlushNeverReached(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	ctx := context.Background()
	e.spentInOutage(t, 0.01)
	var wg sync.WaitGroup
	e.p.SlowCommands(2 * time.Second) // the first flush's write is held
	e.clk.Advance(2 * time.Second)
	wg.Go(func() { e.l.Admit(ctx, spender(0)) })
	time.Sleep(150 * time.Millisecond)
	e.l.Spend(ctx, spender(0), 0, 0.02) // pending, apart from the flush in flight
	e.p.SlowCommands(0)
	e.p.Slow(700 * time.Millisecond) // the second flush lands, its replies come late
	e.clk.Advance(2 * time.Second)
	wg.Go(func() { e.l.Admit(ctx, spender(0)) })
	wg.Wait()
	e.p.Cut() // the first flush's held write never reaches Redis
	e.p.Slow(0)
	time.Sleep(2 * time.Second)
	e.p.Heal()
	direct := e.rs.Client(t)
	if got := direct.Get(ctx, dayKey(0)).Val(); got != "" {
		t.Fatalf("before the next flush %s = %q, want nothing: the first flush never reached Redis, and no second ran beside it", dayKey(0), got)
	}
	e.l.Spend(ctx, spender(0), 0, 0.04)
	e.flushAll(t)
	wantCounter(t, direct, dayKey(0), 70000, 14*time.Hour+time.Minute-6*time.Second)
}

// heldDeletes holds a client's pipelines of DELs (forget's) until release
// is closed, telling started when the first one arrives and done when it
// has returned.
type heldDeletes struct {
	started, release, done chan struct{}
	once                   sync.Once
}

func (h *heldDeletes) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *heldDeletes) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

func (h *heldDeletes) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		first := false
		if len(cmds) > 0 && cmds[0].Name() == "del" {
			h.once.Do(func() { first = true; close(h.started) })
			<-h.release
		}
		err := next(ctx, cmds)
		if first {
			close(h.done)
		}
		return err
	}
}

// Redis goes away again after a flush landed and before its markers'
// delete ran: the delete fails, and the markers are deleted by a later
// request once Redis answers, not left for the rest of the window.
func TestRedisMarkersOutliveAFailedDelete(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	h := &heldDeletes{started: make(chan struct{}), release: make(chan struct{}), done: make(chan struct{})}
	e.rdb.AddHook(h)
	ctx := context.Background()
	e.spentInOutage(t, 0.01)
	e.flushAll(t)
	<-h.started
	e.p.Cut()
	close(h.release)
	<-h.done // the delete failed
	direct := e.rs.Client(t)
	if ms := direct.Keys(ctx, dayKey(0)+":flush:*").Val(); len(ms) != 1 {
		t.Fatalf("markers after the failed delete: %v, want one", ms)
	}
	e.p.Heal()
	wantNoMarkers(t, direct, dayKey(0), func() {
		e.clk.Advance(2 * time.Second)
		e.l.Admit(ctx, spender(1))
	})
	wantCounter(t, direct, dayKey(0), 10000, 14*time.Hour+time.Minute)
}
