package limit

import (
	"context"
	"log/slog"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
)

// clock is a settable clock shared by a test's limiters and counters.
func newClock(t time.Time) *testutil.Clock     { return testutil.NewClock(t) }
func at(s string) time.Time                    { t, _ := time.Parse(time.RFC3339, s); return t }
func key(k config.ClientKey) *config.ClientKey { return &k }

// counters runs f over a Memory and over Redis (one real server).
func counters(t *testing.T, f func(t *testing.T, mk func(now func() time.Time) Counter)) {
	t.Run("memory", func(t *testing.T) {
		f(t, func(now func() time.Time) Counter { return NewMemory(now) })
	})
	t.Run("redis", func(t *testing.T) {
		rs := redistest.Start(t)
		c := rs.Client(t)
		f(t, func(now func() time.Time) Counter { return NewRedis(c, "detour:", nil, now) })
	})
}

func TestRequestsPerMinute(t *testing.T) {
	counters(t, func(t *testing.T, mk func(func() time.Time) Counter) {
		clk := newClock(at("2026-12-01T10:00:15Z"))
		l := New(mk(clk.Now), clk.Now)
		k := key(config.ClientKey{Name: "team-a", Rate: config.Rate{RequestsPerMinute: 3}})
		for i := range 3 {
			if r := l.Admit(context.Background(), k); r != nil {
				t.Fatalf("request %d refused: %+v", i+1, r)
			}
		}
		r := l.Admit(context.Background(), k)
		if r == nil || r.Limit != "requests_per_minute" || r.RetryAfter != 45*time.Second ||
			!strings.Contains(r.Message, `"team-a"`) || !strings.Contains(r.Message, "requests_per_minute") {
			t.Fatalf("4th request: %+v, want refused by requests_per_minute for 45s", r)
		}
		// Refused requests are not counted: the next minute admits three again.
		clk.Set(at("2026-12-01T10:01:00Z"))
		for i := range 3 {
			if r := l.Admit(context.Background(), k); r != nil {
				t.Fatalf("next minute, request %d refused: %+v", i+1, r)
			}
		}
		// Another client has its own counters.
		if r := l.Admit(context.Background(), key(config.ClientKey{Name: "team-b", Rate: config.Rate{RequestsPerMinute: 1}})); r != nil {
			t.Fatalf("team-b refused: %+v", r)
		}
	})
}

func TestBudgetAndTokens(t *testing.T) {
	counters(t, func(t *testing.T, mk func(func() time.Time) Counter) {
		clk := newClock(at("2026-12-31T23:00:00Z"))
		l := New(mk(clk.Now), clk.Now)
		k := key(config.ClientKey{Name: "ci", Rate: config.Rate{TokensPerMinute: 1000},
			Budget: config.Budget{USDPerDay: 5, USDPerMonth: 7}})
		ctx := context.Background()
		if r := l.Admit(ctx, k); r != nil {
			t.Fatal(r)
		}
		l.Spend(ctx, k, 400, 4.99)
		if r := l.Admit(ctx, k); r != nil {
			t.Fatalf("under every cap: %+v", r)
		}
		l.Spend(ctx, k, 700, 0.02) // 1100 tokens this minute, $5.01 today
		r := l.Admit(ctx, k)
		if r == nil || r.Limit != "tokens_per_minute" || r.RetryAfter != time.Minute {
			t.Fatalf("over tokens: %+v", r)
		}
		clk.Set(at("2026-12-31T23:01:30Z"))
		r = l.Admit(ctx, k)
		if r == nil || r.Limit != "usd_per_day" || r.RetryAfter != 58*time.Minute+30*time.Second ||
			!strings.Contains(r.Message, "usd_per_day budget ($5); it resets at 00:00 UTC, in 58m30s") {
			t.Fatalf("over the day's budget: %+v", r)
		}
		// The day turns (and the month): the budget is fresh.
		clk.Set(at("2027-01-01T00:00:00Z"))
		if r := l.Admit(ctx, k); r != nil {
			t.Fatalf("new day: %+v", r)
		}
		l.Spend(ctx, k, 10, 4)
		clk.Set(at("2027-01-02T00:00:00Z"))
		l.Spend(ctx, k, 10, 3.5) // $7.50 this month
		r = l.Admit(ctx, k)
		if r == nil || r.Limit != "usd_per_month" || r.RetryAfter != 30*24*time.Hour {
			t.Fatalf("over the month's budget: %+v", r)
		}
	})
}

func TestUnlimitedKeyIsNeverCounted(t *testing.T) {
	m := NewMemory(nil)
	l := New(m, nil)
	k := key(config.ClientKey{Name: "free", Key: "k"})
	for range 100 {
		if r := l.Admit(context.Background(), k); r != nil {
			t.Fatal(r)
		}
		l.Spend(context.Background(), k, 1e6, 1e3)
	}
	if len(m.m) != 0 {
		t.Errorf("counters for a key without limits: %v", m.m)
	}
}

// Two replicas, each with its own Redis counter over one server, share one
// request rate and one budget.
func TestRedisSharedAcrossReplicas(t *testing.T) {
	rs := redistest.Start(t)
	clk := newClock(at("2026-12-01T10:00:00Z"))
	a := New(NewRedis(rs.Client(t), "detour:", nil, clk.Now), clk.Now)
	b := New(NewRedis(rs.Client(t), "detour:", nil, clk.Now), clk.Now)
	k := key(config.ClientKey{Name: "team-a", Rate: config.Rate{RequestsPerMinute: 4}, Budget: config.Budget{USDPerDay: 1}})
	ctx := context.Background()
	for i, l := range []*Limiter{a, b, a, b} {
		if r := l.Admit(ctx, k); r != nil {
			t.Fatalf("request %d refused: %+v", i+1, r)
		}
	}
	if r := b.Admit(ctx, k); r == nil || r.Limit != "requests_per_minute" {
		t.Fatalf("5th request across replicas: %+v", r)
	}
	clk.Set(at("2026-12-01T10:01:00Z"))
	a.Spend(ctx, k, 100, 1.0)
	if r := b.Admit(ctx, k); r == nil || r.Limit != "usd_per_day" {
		t.Fatalf("B after A spent the budget: %+v", r)
	}
	// The keys carry one hash tag per client, and expire.
	keys, err := rs.Client(t).Keys(ctx, "detour:{client:team-a}:*").Result()
	if err != nil || len(keys) != 2 { // requests and the day (no tokens or month cap: not counted)
		t.Fatalf("keys %v (%v)", keys, err)
	}
	for _, name := range keys {
		if ttl := rs.Client(t).PTTL(ctx, name).Val(); ttl <= 0 {
			t.Errorf("%s has no expiry (%v)", name, ttl)
		}
	}
}

// While Redis is away each replica counts locally; spend counted then is
// added to Redis when it is back.
func TestRedisOutageCountsLocally(t *testing.T) {
	rs := redistest.Start(t)
	clk := newClock(at("2026-12-01T10:00:00Z"))
	c := NewRedis(rs.Client(t), "detour:", nil, clk.Now)
	l := New(c, clk.Now)
	k := key(config.ClientKey{Name: "team-a", Rate: config.Rate{RequestsPerMinute: 2}, Budget: config.Budget{USDPerDay: 1}})
	ctx := context.Background()
	rs.Kill()
	for i := range 2 {
		if r := l.Admit(ctx, k); r != nil {
			t.Fatalf("request %d with Redis away: %+v", i+1, r)
		}
	}
	if r := l.Admit(ctx, k); r == nil || r.Limit != "requests_per_minute" {
		t.Fatalf("local count with Redis away: %+v", r)
	}
	l.Spend(ctx, k, 10, 0.6)
	rs.Start(t)
	clk.Set(at("2026-12-01T10:01:01Z")) // a new minute, past the retry interval
	if r := l.Admit(ctx, k); r != nil {
		t.Fatalf("Redis back: %+v", r)
	}
	// Another replica sees the spend made during the outage.
	other := New(NewRedis(rs.Client(t), "detour:", nil, clk.Now), clk.Now)
	other.Spend(ctx, k, 10, 0.5)
	if r := other.Admit(ctx, k); r == nil || r.Limit != "usd_per_day" {
		t.Fatalf("the outage's spend was not written back: %+v", r)
	}
}

// An upstream may report any usage (an 18-digit token count), and a price
// times that may pass what an int64 of micro-dollars holds: a counter must
// then stay at least at its cap, never wrap to a negative count (which
// would admit the client for the rest of the month), and over Redis the
// spend must reach Redis without a failed command (which read as an outage).
func TestHugeSpendSaturates(t *testing.T) {
	counters(t, func(t *testing.T, mk func(func() time.Time) Counter) {
		clk := newClock(at("2026-12-01T10:00:00Z"))
		var logs strings.Builder
		c := mk(clk.Now)
		if r, ok := c.(*Redis); ok {
			r.log = slog.New(slog.NewTextHandler(&logs, nil))
		}
		l := New(c, clk.Now)
		k := key(config.ClientKey{Name: "team-a", Rate: config.Rate{TokensPerMinute: 1000},
			Budget: config.Budget{USDPerDay: 5, USDPerMonth: 7}})
		ctx := context.Background()
		for range 12 { // 12 × 1e18 passes math.MaxInt64
			l.Spend(ctx, k, 999999999999999999, 1e13) // 1e13 USD: 1e19 micro-dollars
		}
		clk.Set(at("2026-12-01T10:00:05Z")) // past a replica's Redis retry interval
		if r := l.Admit(ctx, k); r == nil || r.Limit != "tokens_per_minute" {
			t.Fatalf("after a huge spend: %+v, want refused by tokens_per_minute", r)
		}
		clk.Set(at("2026-12-01T10:01:00Z"))
		if r := l.Admit(ctx, k); r == nil || r.Limit != "usd_per_day" {
			t.Fatalf("next minute: %+v, want refused by usd_per_day", r)
		}
		l.Spend(ctx, k, 0, math.Inf(1))
		l.Spend(ctx, k, 0, math.NaN())
		clk.Set(at("2026-12-02T00:00:00Z"))
		if r := l.Admit(ctx, k); r == nil || r.Limit != "usd_per_month" {
			t.Fatalf("next day: %+v, want refused by usd_per_month", r)
		}
		if strings.Contains(logs.String(), "unreachable") {
			t.Errorf("a huge spend was logged as a Redis outage:\n%s", logs.String())
		}
	})
}

// A cap past the counters' ceiling is still a cap.
func TestHugeBudgetIsStillACap(t *testing.T) {
	clk := newClock(at("2026-12-01T10:00:00Z"))
	l := New(NewMemory(clk.Now), clk.Now)
	k := key(config.ClientKey{Name: "rich", Budget: config.Budget{USDPerDay: 1e13}})
	l.Spend(context.Background(), k, 0, 2e13)
	if r := l.Admit(context.Background(), k); r == nil || r.Limit != "usd_per_day" {
		t.Fatalf("after spending twice a $1e13 budget: %+v", r)
	}
	k = key(config.ClientKey{Name: "wordy", Rate: config.Rate{TokensPerMinute: 1e17}})
	l.Spend(context.Background(), k, 2e17, 0)
	if r := l.Admit(context.Background(), k); r == nil || r.Limit != "tokens_per_minute" {
		t.Fatalf("after twice a 1e17 tokens_per_minute: %+v", r)
	}
}

// TestRefusedIsRememberedUntilTheWindowTurns: a key Admit refused is
// refused again, reading no counter, with the wait left in its window; not
// once the window turns, nor once a reload raised the cap it was over.
func TestRefusedIsRememberedUntilTheWindowTurns(t *testing.T) {
	clk := newClock(at("2026-12-01T10:00:15Z"))
	l := New(NewMemory(clk.Now), clk.Now)
	k := key(config.ClientKey{Name: "team-a", Rate: config.Rate{RequestsPerMinute: 1}})
	var nilLimiter *Limiter
	if nilLimiter.Refused(k) != nil || l.Refused(k) != nil || l.Refused(nil) != nil {
		t.Fatal("refused before any refusal")
	}
	if l.Admit(context.Background(), k) != nil || l.Refused(k) != nil {
		t.Fatal("the first request was refused, or remembered as refused")
	}
	r := l.Admit(context.Background(), k)
	if r == nil {
		t.Fatal("the second request in the minute was admitted")
	}
	clk.Advance(15 * time.Second)
	got := l.Refused(k)
	if got == nil || got.Limit != r.Limit || got.RetryAfter != 30*time.Second || !strings.Contains(got.Message, "retry after 30s") {
		t.Fatalf("remembered refusal 15 s later: %+v, want %s with 30 s left", got, r.Limit)
	}
	raised := key(config.ClientKey{Name: "team-a", Rate: config.Rate{RequestsPerMinute: 5}})
	if got := l.Refused(raised); got != nil {
		t.Fatalf("refused under a raised cap: %+v", got)
	}
	clk.Advance(30 * time.Second)
	if got := l.Refused(k); got != nil {
		t.Fatalf("refused once the minute turned: %+v", got)
	}
}

// Refusals counts each key's refused requests apart (operator review 55).
func TestCountRefusal(t *testing.T) {
	l := New(NewMemory(nil), nil)
	for range 15 {
		l.CountRefusal("batch")
	}
	l.CountRefusal("team-a")
	if l.Refusals("batch") != 15 || l.Refusals("team-a") != 1 || l.Refusals("other") != 0 {
		t.Errorf("refusals batch %d, team-a %d, other %d", l.Refusals("batch"), l.Refusals("team-a"), l.Refusals("other"))
	}
	var none *Limiter
	none.CountRefusal("x")
	if none.Refusals("x") != 0 {
		t.Error("a nil Limiter counted")
	}
}
