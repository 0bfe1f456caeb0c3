package limit

import (
	"context"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/health"
)

// A counter key that holds something Detour did not write — a word, a
// float, a list — is read as 0 and overwritten, and is no outage: a
// script that failed on it once put every client on local counting for
// good, since each retry failed again (review 33d). The other clients'
// counters stay shared meanwhile.
func TestRedisForeignCounterIsNoOutage(t *testing.T) {
	e := newProxied(t, health.RedisConfig{})
	ctx := context.Background()
	rdb := e.rs.Client(t)
	rpm := key(config.ClientKey{Name: "team-00", Rate: config.Rate{RequestsPerMinute: 2}})
	reqKey := "detour:{client:team-00}:req:202612011000"
	for _, foreign := range []func() error{
		func() error { return rdb.Set(ctx, reqKey, "garbage", 0).Err() },
		func() error { return rdb.Set(ctx, reqKey, "1.5", 0).Err() },
		func() error { return rdb.LPush(ctx, reqKey, "x").Err() },
	} {
		rdb.Del(ctx, reqKey)
		if err := foreign(); err != nil {
			t.Fatal(err)
		}
		for i := range 2 {
			if r := e.l.Admit(ctx, rpm); r != nil {
				t.Fatalf("request %d refused: %s", i+1, r.Message)
			}
		}
		if r := e.l.Admit(ctx, rpm); r == nil {
			t.Error("a third request in the minute was admitted: the foreign counter was not replaced")
		}
		if got, err := rdb.Get(ctx, reqKey).Int64(); err != nil || got != 2 {
			t.Errorf("counter = %d (%v), want 2 in Redis", got, err)
		}
		if strings.Contains(e.logs.String(), "unreachable") {
			t.Fatalf("a foreign value was taken for an outage:\n%s", e.logs)
		}
	}
	// Spend on a foreign day counter: added on top of 0.
	rdb.Set(ctx, dayKey(1), "garbage", 0)
	e.l.Spend(ctx, spender(1), 0, 0.5)
	if got, err := rdb.Get(ctx, dayKey(1)).Int64(); err != nil || got != 500000 {
		t.Errorf("day counter = %d (%v), want 500000", got, err)
	}
	if strings.Contains(e.logs.String(), "unreachable") {
		t.Fatalf("a foreign value was taken for an outage:\n%s", e.logs)
	}
}
