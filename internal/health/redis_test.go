package health

import (
	"bytes"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// logBuf collects a store's log lines.
type logBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuf) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuf) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

func newRedisStore(t testing.TB, srv *redistest.Server, prefix string, now func() time.Time, log *logBuf) *RedisStore {
	var w bytes.Buffer
	var lg *slog.Logger
	if log != nil {
		lg = slog.New(slog.NewTextHandler(log, nil))
	} else {
		lg = slog.New(slog.NewTextHandler(&w, nil))
	}
	s := NewRedis(srv.Client(t), prefix, lg)
	s.SetClock(now)
	return s
}

var prefixN atomic.Int64

func TestRedis(t *testing.T) {
	srv := redistest.Start(t)
	runSuite(t, func(t *testing.T, now func() time.Time) Store {
		return newRedisStore(t, srv, "t"+strconv.FormatInt(prefixN.Add(1), 10)+":", now, nil)
	})
}

func TestRedisExpiry(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	st := newRedisStore(t, srv, "exp:", c.Now, nil)
	tr := New(st, Settings{}, all3, c.Now)
	tr.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond})
	tr.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
	st.Claim(ctx, "quota/openai", time.Hour)
	rc := srv.Client(t)
	for key, want := range map[string]time.Duration{
		"exp:ep:claude/anthropic": keepFor,             // latency stats: at least 24h
		"exp:acct:openai":         keepFor + time.Hour, // 24h past the end of the cooldown
		"exp:once:quota/openai":   time.Hour,
	} {
		got, err := rc.PTTL(ctx, key).Result()
		if err != nil || got > want || got < want-time.Minute {
			t.Errorf("%s: ttl %v (%v), want about %v", key, got, err, want)
		}
	}
	// Every key written has an expiry.
	keys, err := rc.Keys(ctx, "exp:*").Result()
	if err != nil || len(keys) < 3 {
		t.Fatalf("keys %v %v", keys, err)
	}
	for _, k := range keys {
		if d, _ := rc.PTTL(ctx, k).Result(); d <= 0 {
			t.Errorf("%s has no expiry (%v)", k, d)
		}
	}
}

func TestRedisSharedTrackers(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	a := New(newRedisStore(t, srv, "shared:", c.Now, nil), Settings{}, all3, c.Now)
	b := New(newRedisStore(t, srv, "shared:", c.Now, nil), Settings{}, all3, c.Now)

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

func TestRedisProbeRace(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	var trs []*Tracker
	for range 4 {
		trs = append(trs, New(newRedisStore(t, srv, "race:", c.Now, nil), Settings{}, all3, c.Now))
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

func TestRedisOnce(t *testing.T) {
	srv := redistest.Start(t)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 4 {
		st := newRedisStore(t, srv, "once:", time.Now, nil)
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
