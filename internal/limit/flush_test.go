package limit

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
)

// roundTrips counts what a go-redis client sends: single commands, and
// pipelines with the number of commands in each — those that run scripts;
// a new connection's own handshake (HELLO, CLIENT SETINFO) is not counted.
type roundTrips struct {
	mu        sync.Mutex
	singles   int
	pipelines []int
}

func (h *roundTrips) DialHook(next redis.DialHook) redis.DialHook { return next }

func (h *roundTrips) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		if scripted(cmd) {
			h.mu.Lock()
			h.singles++
			h.mu.Unlock()
		}
		return next(ctx, cmd)
	}
}

func (h *roundTrips) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) > 0 && scripted(cmds[0]) {
			h.mu.Lock()
			h.pipelines = append(h.pipelines, len(cmds))
			h.mu.Unlock()
		}
		return next(ctx, cmds)
	}
}

func scripted(cmd redis.Cmder) bool { return strings.HasPrefix(cmd.Name(), "eval") }

// take returns the counts so far and starts again from zero.
func (h *roundTrips) take() (singles int, pipelines []int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	singles, pipelines = h.singles, h.pipelines
	h.singles, h.pipelines = 0, nil
	return singles, pipelines
}

// client is the Redis client Detour builds for c (its timeouts, no
// retries), counting its round trips.
func client(t *testing.T, c health.RedisConfig) (redis.UniversalClient, *roundTrips) {
	t.Helper()
	rdb, err := health.NewRedisClient(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rdb.Close() })
	h := &roundTrips{}
	rdb.AddHook(h)
	return rdb, h
}

// proxied is a limiter on a real Redis reached through a proxy that can
// cut or slow it, on a test clock at 2026-12-01 10:00, logging into logs.
type proxied struct {
	rs   *redistest.Server
	p    *redistest.Proxy
	rdb  redis.UniversalClient
	rt   *roundTrips
	clk  *testutil.Clock
	logs *testutil.Buffer
	r    *Redis
	l    *Limiter
}

func newProxied(t *testing.T, c health.RedisConfig) *proxied {
	t.Helper()
	e := &proxied{rs: redistest.Start(t), logs: &testutil.Buffer{}}
	e.p = redistest.StartProxy(t, e.rs.Addr())
	c.URL = e.p.URL()
	e.rdb, e.rt = client(t, c)
	e.clk = testutil.NewClock(at("2026-12-01T10:00:00Z"))
	e.r = NewRedis(e.rdb, "detour:", e.logs.Logger(), e.clk.Now)
	e.l = New(e.r, e.clk.Now)
	return e
}

// spender is a client key with a daily budget only: one counter per client.
func spender(i int) *config.ClientKey {
	return key(config.ClientKey{Name: fmt.Sprintf("team-%02d", i), Budget: config.Budget{USDPerDay: 1000}})
}

// dayKey is the Redis key of spender(i)'s day on 2026-12-01.
func dayKey(i int) string { return fmt.Sprintf("detour:{client:team-%02d}:usd:d:20261201", i) }

// wantCounter checks a counter's value and that it expires within the
// window's remaining time (ttl, on the test's clock) and not much sooner.
func wantCounter(t *testing.T, rdb redis.UniversalClient, name string, n int64, ttl time.Duration) {
	t.Helper()
	ctx := context.Background()
	got, err := rdb.Get(ctx, name).Int64()
	if err != nil || got != n {
		t.Errorf("%s = %d (%v), want %d", name, got, err, n)
		return
	}
	if pttl, err := rdb.PTTL(ctx, name).Result(); err != nil || pttl > ttl || pttl < ttl-30*time.Second {
		t.Errorf("%s expires in %v (%v), want %v", name, pttl, err, ttl)
	}
}

// A replica that counted 50 clients' spend while Redis was away adds it
// all in one round trip when Redis is back, on the path of the first
// request after: that request waits one round trip for it, not one per
// key. Here every write to Redis takes 50ms to land (a slow or distant
// Redis): 50 adds one after the other took about 3 seconds, and a
// connection's handshake already takes 150ms of the op's 500ms.
func TestRedisFlushIsOneRoundTrip(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	rs, p, rt, clk, logs, l := e.rs, e.p, e.rt, e.clk, e.logs, e.l
	ctx := context.Background()

	p.Cut()
	const clients = 50
	for i := range clients {
		l.Spend(ctx, spender(i), 0, float64(i+1)/100) // $0.01 × (i+1)
	}
	if logs.Count("redis unreachable") != 1 {
		t.Fatalf("the outage was not noticed:\n%s", logs.String())
	}
	p.Heal()
	p.SlowCommands(50 * time.Millisecond)
	clk.Advance(2 * time.Second) // past the retry interval
	rt.take()
	start := time.Now()
	if r := l.Admit(ctx, spender(0)); r != nil {
		t.Fatalf("first request after the outage: %+v", r)
	}
	took := time.Since(start)
	singles, pipelines := rt.take()
	t.Logf("first request after the outage: %v; %d single commands, pipelines %v", took, singles, pipelines)
	if len(pipelines) != 1 || pipelines[0] != clients {
		t.Errorf("pipelines %v, want one of %d commands (the whole flush)", pipelines, clients)
	}
	if singles > 2 { // the request's own admit: EVALSHA, and EVAL if the script was not loaded
		t.Errorf("%d single commands besides the flush, want at most 2", singles)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("the first request after the outage took %v, want a few round trips of 50ms", took)
	}
	if logs.Count("redis is back") != 1 || logs.Count("redis unreachable") != 1 {
		t.Errorf("logs:\n%s", logs.String())
	}
	p.SlowCommands(0)
	// Every client's spend is in Redis, counted once, expiring with its
	// day (the window's end plus a minute, from the spend's time).
	direct := rs.Client(t)
	for i := range clients {
		wantCounter(t, direct, dayKey(i), int64(i+1)*10000, 14*time.Hour+time.Minute-2*time.Second)
	}
}

// A flush that fails keeps the spend, merged with what is spent after, for
// the next try; a counter whose window ended meanwhile is dropped.
func TestRedisFailedFlushKeepsSpend(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	rs, p, clk, l := e.rs, e.p, e.clk, e.l
	ctx := context.Background()
	tokens := key(config.ClientKey{Name: "team-00", Rate: config.Rate{TokensPerMinute: 1000}, Budget: config.Budget{USDPerDay: 1000}})

	p.Cut()
	l.Spend(ctx, tokens, 300, 0.25)
	l.Spend(ctx, spender(1), 0, 0.5)
	clk.Advance(2 * time.Second)
	// Redis is still away: this request's flush fails, and it is answered
	// from the local count.
	if r := l.Admit(ctx, tokens); r != nil {
		t.Fatalf("during the outage: %+v", r)
	}
	l.Spend(ctx, tokens, 100, 0.125)
	l.Spend(ctx, spender(2), 0, 0.75)
	p.Heal()
	clk.Set(at("2026-12-01T10:03:00Z")) // the minute's counter has expired meanwhile
	if r := l.Admit(ctx, spender(1)); r != nil {
		t.Fatalf("after the outage: %+v", r)
	}
	direct := rs.Client(t)
	left := 14*time.Hour + time.Minute - 3*time.Minute
	wantCounter(t, direct, dayKey(0), 375000, left)
	wantCounter(t, direct, dayKey(1), 500000, left)
	wantCounter(t, direct, dayKey(2), 750000, left)
	if n, err := direct.Keys(ctx, "detour:{client:team-00}:tok:*").Result(); err != nil || len(n) != 0 {
		t.Errorf("an ended minute's tokens were added: %v (%v)", n, err)
	}
	// Nothing is left to add: the next request sends no flush.
	before := direct.Get(ctx, dayKey(0)).Val()
	clk.Advance(time.Second)
	l.Admit(ctx, spender(1))
	if after := direct.Get(ctx, dayKey(0)).Val(); after != before {
		t.Errorf("the spend was added twice: %s, then %s", before, after)
	}
}

// On a Redis Cluster the clients' counters live on different masters; the
// flush still goes as one pipeline (go-redis splits it by node), and when
// one master is down, the counters on the others land and those on it are
// kept until it is back — each counted once.
func TestRedisClusterFlush(t *testing.T) {
	cl := redistest.StartCluster(t, 3)
	rdb, rt := client(t, health.RedisConfig{Cluster: cl.URLs()})
	clk := testutil.NewClock(at("2026-12-01T10:00:00Z"))
	var logs testutil.Buffer
	l := New(NewRedis(rdb, "detour:", logs.Logger(), clk.Now), clk.Now)
	ctx := context.Background()
	const clients = 30
	victim := cl.MasterOf(t, dayKey(0))
	on := map[int]bool{} // the clients whose counter is on the victim
	for i := range clients {
		on[i] = cl.MasterOf(t, dayKey(i)) == victim
	}

	victim.Kill()
	for i := range clients { // the first fails on the victim: then all count locally
		l.Spend(ctx, spender(i), 0, float64(i+1)/100)
	}
	if logs.Count("redis unreachable") != 1 {
		t.Fatalf("the outage was not noticed:\n%s", logs.String())
	}
	first := 0
	for on[first] {
		first++
	}
	clk.Advance(2 * time.Second)
	rt.take()
	l.Admit(ctx, spender(first)) // its counter is on a live master
	if _, pipelines := rt.take(); len(pipelines) != 1 || pipelines[0] != clients {
		t.Errorf("pipelines %v, want one of %d commands", pipelines, clients)
	}
	for i := range clients {
		if !on[i] {
			wantCounter(t, rdb, dayKey(i), int64(i+1)*10000, 14*time.Hour+time.Minute-2*time.Second)
		}
	}
	// A flush that failed leaves Redis away until the next retry: the
	// requests meanwhile count locally, and do not each try the flush
	// again (a master that does not answer would cost each of them a
	// timeout), nor log Redis as back and away again.
	for range 3 {
		l.Admit(ctx, spender(first))
	}
	if singles, pipelines := rt.take(); len(pipelines) != 0 || singles != 0 {
		t.Errorf("within the retry interval after a failed flush: %d commands and pipelines %v, want none", singles, pipelines)
	}
	if n := logs.Count("redis is back"); n != 0 {
		t.Errorf("Redis logged as back %d times while a master was down:\n%s", n, logs.String())
	}

	victim.Start(t)
	cl.WaitHealthy(t)
	clk.Advance(2 * time.Second)
	rt.take()
	deadline := time.Now().Add(30 * time.Second)
	for {
		l.Admit(ctx, spender(first))
		if _, p := rt.take(); len(p) == 0 || time.Now().After(deadline) {
			break // no flush was sent: nothing was pending
		}
		clk.Advance(2 * time.Second) // the client may need a moment to reach the restarted master
	}
	for i := range clients {
		wantCounter(t, rdb, dayKey(i), int64(i+1)*10000, 14*time.Hour+time.Minute-4*time.Second)
	}
}

// Spend past the counters' ceiling during an outage, through a failed
// flush, lands as the ceiling: the counter refuses, and the add is not
// refused by Redis (which would read as an outage).
func TestRedisFlushSaturates(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	rs, p, clk, logs, l := e.rs, e.p, e.clk, e.logs, e.l
	ctx := context.Background()

	p.Cut()
	l.Spend(ctx, spender(0), 0, 1e13) // 1e19 micro-dollars
	l.Spend(ctx, spender(0), 0, 1e13)
	clk.Advance(2 * time.Second)
	l.Admit(ctx, spender(1)) // the flush fails: Redis is still away
	l.Spend(ctx, spender(0), 0, 1e13)
	p.Heal()
	clk.Advance(2 * time.Second)
	logs.Take()
	if r := l.Admit(ctx, spender(0)); r == nil || r.Limit != "usd_per_day" {
		t.Fatalf("after the outage: %+v, want refused by usd_per_day", r)
	}
	wantCounter(t, rs.Client(t), dayKey(0), Ceiling, 14*time.Hour+time.Minute-4*time.Second)
	if s := logs.String(); strings.Contains(s, "unreachable") || !strings.Contains(s, "redis is back") {
		t.Errorf("logs after Redis came back:\n%s", s)
	}
}

// state.timeout bounds the limits' Redis operations as it does the health
// store's: through a Redis whose every command takes 300ms (a new
// connection's handshake alone then takes about a second), a spend is an
// outage under the default 500ms, and lands under a 3s timeout.
func TestRedisSetTimeout(t *testing.T) {
	for _, c := range []struct {
		timeout time.Duration
		shared  bool
	}{{0, false}, {3 * time.Second, true}} {
		e := newProxied(t, health.RedisConfig{Timeout: 3 * time.Second})
		e.r.SetTimeout(c.timeout)
		p, rdb, logs, l := e.p, e.rdb, e.logs, e.l
		p.SlowCommands(300 * time.Millisecond)
		l.Spend(context.Background(), spender(1), 0, 0.5)
		if got := logs.Count("redis unreachable") == 0; got != c.shared {
			t.Errorf("timeout %v: shared %v, want %v (logs: %s)", c.timeout, got, c.shared, logs.String())
		}
		if c.shared {
			wantCounter(t, rdb, dayKey(1), 500_000, 14*time.Hour+time.Minute)
		}
	}
}
