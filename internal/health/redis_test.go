package health

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
)

// logBuf collects a store's log lines.
type logBuf = testutil.Buffer

// go-redis logs through a global logger (e.g. each master a sentinel names);
// keep test output to what tests say.
func init() { redis.SetLogger(quietLogger{}) }

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// topology is a Redis deployment the store is tested on: start runs it for
// the test and says how Detour reaches it.
type topology struct {
	name  string
	start func(t testing.TB) RedisConfig
}

var topologies = []topology{
	{"single", func(t testing.TB) RedisConfig { return RedisConfig{URL: redistest.Start(t).URL()} }},
	{"cluster", func(t testing.TB) RedisConfig { return RedisConfig{Cluster: redistest.StartCluster(t, 3).URLs()} }},
	{"sentinel", func(t testing.TB) RedisConfig {
		return RedisConfig{SentinelMaster: redistest.MasterName, Sentinels: redistest.StartSentinel(t).URLs()}
	}},
}

// newClient is the client Detour builds for rc, closed at the test's end.
func newClient(t testing.TB, rc RedisConfig) redis.UniversalClient {
	t.Helper()
	c, err := NewRedisClient(rc)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// testTimeout is state.timeout in these tests. They check the rules,
// atomicity and the fallback when Redis is down or cut off (which fails at
// once: a refused or closed connection), not the production bound of 500ms:
// on a loaded machine, under -race, an operation (twenty contending
// transactions, a cluster node fsyncing its append-only file) may outlast
// it, and a store that falls back when Redis is merely slow breaks the
// scenarios' counts of outages and alerts.
const testTimeout = 10 * time.Second

// newStore is a store as Detour builds it, over rc with state.timeout
// testTimeout, logging into log (nil: nowhere).
func newStore(t testing.TB, rc RedisConfig, prefix string, now func() time.Time, log *logBuf) *RedisStore {
	t.Helper()
	var w io.Writer = io.Discard
	if log != nil {
		w = log
	}
	rc.Timeout = testTimeout
	s := NewRedis(newClient(t, rc), prefix, slog.New(slog.NewTextHandler(w, nil)))
	s.SetClock(now)
	s.SetTimeout(testTimeout)
	return s
}

func newRedisStore(t testing.TB, srv *redistest.Server, prefix string, now func() time.Time, log *logBuf) *RedisStore {
	return newStore(t, RedisConfig{URL: srv.URL()}, prefix, now, log)
}

var prefixN atomic.Int64

func uniquePrefix(name string) string {
	return name + strconv.FormatInt(prefixN.Add(1), 10) + ":"
}

// TestRedisTopologies runs the shared suite and the sharing scenarios on a
// single redis-server, a three-master Redis Cluster and a Sentinel-managed
// primary, each started once for all of them.
func TestRedisTopologies(t *testing.T) {
	for _, topo := range topologies {
		t.Run(topo.name, func(t *testing.T) {
			t.Parallel()
			rc := topo.start(t)
			t.Run("suite", func(t *testing.T) {
				runSuite(t, func(t *testing.T, now func() time.Time) Store {
					return newStore(t, rc, uniquePrefix("t"), now, nil) // with testTimeout
				})
			})
			t.Run("expiry", func(t *testing.T) { testRedisExpiry(t, rc) })
			t.Run("shared trackers", func(t *testing.T) { testRedisSharedTrackers(t, rc) })
			t.Run("probe race", func(t *testing.T) { testRedisProbeRace(t, rc) })
			t.Run("once", func(t *testing.T) { testRedisOnce(t, rc) })
			t.Run("release", func(t *testing.T) { testRedisRelease(t, rc) })
			t.Run("forget", func(t *testing.T) { testRedisForget(t, rc) })
			t.Run("foreign", func(t *testing.T) { testRedisForeign(t, rc) })
		})
	}
}

// keys lists the keys matching pattern on every node (KEYS is per node on a
// cluster).
func keys(t *testing.T, rc RedisConfig, pattern string) []string {
	t.Helper()
	c := newClient(t, rc)
	var mu sync.Mutex
	var out []string
	collect := func(ctx context.Context, n *redis.Client) error {
		ks, err := n.Keys(ctx, pattern).Result()
		mu.Lock()
		out = append(out, ks...)
		mu.Unlock()
		return err
	}
	var err error
	if cc, ok := c.(*redis.ClusterClient); ok {
		err = cc.ForEachMaster(ctx, collect)
	} else {
		err = collect(ctx, c.(*redis.Client))
	}
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

func testRedisExpiry(t *testing.T, rc RedisConfig) {
	c := newClock()
	p := uniquePrefix("exp")
	st := newStore(t, rc, p, c.Now, nil)
	tr := New(st, Settings{}, all3, c.Now)
	tr.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond})
	tr.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
	st.Claim(ctx, "quota/openai", time.Hour)
	rcl := newClient(t, rc)
	// The key layout (docs/scale.md): the provider is the hash tag.
	for key, want := range map[string]time.Duration{
		p + "{anthropic}:ep:claude": keepFor,             // latency stats: at least 24h
		p + "{openai}:acct":         keepFor + time.Hour, // 24h past the end of the cooldown
		p + "once:quota/openai":     time.Hour,
	} {
		got, err := rcl.PTTL(ctx, key).Result()
		if err != nil || got > want || got < want-time.Minute {
			t.Errorf("%s: ttl %v (%v), want about %v", key, got, err, want)
		}
	}
	// Every key written has an expiry.
	ks := keys(t, rc, p+"*")
	if want := []string{p + "once:quota/openai", p + "{anthropic}:ep:claude", p + "{openai}:acct", p + "{openai}:ep:gpt"}; !slices.Equal(ks, want) {
		t.Fatalf("keys %v, want %v", ks, want)
	}
	for _, k := range ks {
		if d, _ := rcl.PTTL(ctx, k).Result(); d <= 0 {
			t.Errorf("%s has no expiry (%v)", k, d)
		}
	}
}

func testRedisSharedTrackers(t *testing.T, rc RedisConfig) {
	c := newClock()
	p := uniquePrefix("shared")
	a := New(newStore(t, rc, p, c.Now, nil), Settings{}, all3, c.Now)
	b := New(newStore(t, rc, p, c.Now, nil), Settings{}, all3, c.Now)

	a.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: time.Minute})
	b.Report(ctx, epC, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Minute})
	b.Report(ctx, epB, Report{OK: true, Latency: 42 * time.Millisecond})
	for name, tr := range map[string]*Tracker{"a": a, "b": b} {
		st := tr.View(ctx, all3)
		if st[0].Phase != Cooling || st[2].Phase != Cooling || st[1].Phase != Healthy || st[1].Latency != 42*time.Millisecond {
			t.Fatalf("%s sees %+v", name, st)
		}
	}
	c.Advance(time.Minute)
	// Exactly one replica wins the probe, and reports the transition once.
	okA, trA := a.TryProbe(ctx, epA)
	okB, trB := b.TryProbe(ctx, epA)
	if !okA || okB || len(trA) != 1 || len(trB) != 0 {
		t.Fatalf("a: %v %v; b: %v %v", okA, trA, okB, trB)
	}
	if got := a.Report(ctx, epA, Report{OK: true}); len(got) != 1 || got[0].To != Healthy {
		t.Fatalf("%v", got)
	}
	if st := view1(b, epA); st.Phase != Healthy {
		t.Fatalf("b sees %+v after a's probe closed it", st)
	}
}

func testRedisProbeRace(t *testing.T, rc RedisConfig) {
	c := newClock()
	p := uniquePrefix("race")
	var trs []*Tracker
	for range 4 {
		trs = append(trs, New(newStore(t, rc, p, c.Now, nil), Settings{}, all3, c.Now))
	}
	trs[0].Report(ctx, epA, Report{Class: "auth", Cool: ScopeAccount, CoolFor: time.Minute})
	for round := range 3 {
		c.Advance(time.Hour)
		var wins atomic.Int32
		var wg sync.WaitGroup
		for _, tr := range trs {
			for _, k := range []Key{epA, epB, epA, epB} {
				wg.Go(func() {
					if ok, _ := tr.TryProbe(ctx, k); ok {
						wins.Add(1)
					}
				})
			}
		}
		wg.Wait()
		if wins.Load() != 1 {
			t.Fatalf("round %d: %d of 16 probers won the account's slot, want 1", round, wins.Load())
		}
	}
}

func testRedisOnce(t *testing.T, rc RedisConfig) {
	p := uniquePrefix("once")
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		st := newStore(t, rc, p, time.Now, nil)
		for range 4 {
			wg.Go(func() {
				if st.Claim(ctx, "quota/openai", time.Hour) {
					wins.Add(1)
				}
			})
		}
	}
	wg.Wait()
	if wins.Load() != 1 {
		t.Fatalf("%d claims won, want 1", wins.Load())
	}
}

// testRedisRelease: a released claim may be won again at once, by another
// replica; a release by a replica that does not hold the claim (its own
// expired and another won) takes nothing away.
func testRedisRelease(t *testing.T, rc RedisConfig) {
	p := uniquePrefix("rel")
	a := newStore(t, rc, p, time.Now, nil)
	b := newStore(t, rc, p, time.Now, nil)
	if !a.Claim(ctx, "alert:openai:quota", time.Hour) || b.Claim(ctx, "alert:openai:quota", time.Hour) {
		t.Fatal("want a to win the claim and b to lose it")
	}
	a.Release(ctx, "alert:openai:quota")
	if !b.Claim(ctx, "alert:openai:quota", time.Hour) {
		t.Fatal("b could not claim after a released")
	}
	a.Release(ctx, "alert:openai:quota") // a holds nothing now
	if a.Claim(ctx, "alert:openai:quota", time.Hour) {
		t.Fatal("a's second release took b's claim away")
	}
	// A claim that lapsed and was won by another is not released by its
	// first owner.
	if !a.Claim(ctx, "alert:x:auth", 50*time.Millisecond) {
		t.Fatal("a could not claim a fresh key")
	}
	deadline := time.Now().Add(5 * time.Second)
	for !b.Claim(ctx, "alert:x:auth", time.Hour) {
		if time.Now().After(deadline) {
			t.Fatal("a's 50ms claim never lapsed")
		}
		time.Sleep(20 * time.Millisecond)
	}
	a.Release(ctx, "alert:x:auth")
	if a.Claim(ctx, "alert:x:auth", time.Hour) {
		t.Fatal("a released b's claim")
	}
}

// testRedisForget: an operator's reset on one replica ends a claim another
// replica won, so the next alert is due at once anywhere (operator review
// 50b), where Release would leave another's claim alone.
func testRedisForget(t *testing.T, rc RedisConfig) {
	p := uniquePrefix("fgt")
	a := newStore(t, rc, p, time.Now, nil)
	b := newStore(t, rc, p, time.Now, nil)
	if !b.Claim(ctx, "alert:openai:auth", time.Hour) {
		t.Fatal("b could not claim")
	}
	a.Forget(ctx, "alert:openai:auth")
	if !a.Claim(ctx, "alert:openai:auth", time.Hour) {
		t.Fatal("a could not claim after it forgot b's claim")
	}
}
