package policy

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/route"
)

// TestNewTable pins how a route's spec resolves: fallback_on replaces the
// strategy's default, tail_on decides the tail (the default only without
// it), context_length moves only with a larger window, and the rule and the
// cooldowns are the class's.
func TestNewTable(t *testing.T) {
	cool := Cooling{Durations: Durations{Cooldown: time.Second, UnavailableCooldown: time.Hour, AccountCooldown: time.Minute}}
	ordered := NewTable(Spec{Strategy: route.Ordered}, cool)
	pool := NewTable(Spec{Strategy: route.Pool}, cool)
	written := NewTable(Spec{Strategy: route.Pool, FallbackSet: true, FallbackOn: []classify.Class{classify.Auth}}, cool)
	never := NewTable(Spec{Strategy: route.Fastest, FallbackSet: true}, cool)
	tailOn := NewTable(Spec{HasTail: true, TailOn: []classify.Class{classify.Refusal}}, cool)
	tailDefault := NewTable(Spec{HasTail: true}, cool)
	for _, c := range classify.Classes() {
		if got, want := ordered.Row(c).NextTarget, DefaultNextTarget(route.Ordered, c); got != want {
			t.Errorf("ordered %s: next target %v, want %v", c, got, want)
		}
		if got, want := pool.Row(c).NextTarget, DefaultNextTarget(route.Pool, c); got != want {
			t.Errorf("pool %s: next target %v, want %v", c, got, want)
		}
		if got := written.Row(c).NextTarget; got != (c == classify.Auth) {
			t.Errorf("fallback_on [auth] %s: next target %v", c, got)
		}
		if never.Row(c).NextTarget {
			t.Errorf("fallback_on [] %s moves on", c)
		}
		if ordered.Row(c).Tail != TailNone {
			t.Errorf("no tail, %s: %v", c, ordered.Row(c).Tail)
		}
		if got := tailOn.Row(c).Tail; (got == TailYes) != (c == classify.Refusal) || got == TailNone {
			t.Errorf("tail_on [refusal] %s: %v", c, got)
		}
		if got := tailDefault.Row(c).Tail; (got == TailYes) != DefaultTail(c) {
			t.Errorf("default tail %s: %v", c, got)
		}
		if r := ordered.Row(c); r.Rule != For(c) || r.Class != c || r.LargerWindow != (c == classify.ContextLength) {
			t.Errorf("%s: row %+v", c, r)
		}
	}
	if pool.Row(classify.Unavailable).NextTarget == ordered.Row(classify.Unavailable).NextTarget {
		t.Error("unavailable moves on by default in pools only")
	}
	if got := ordered.CoolFor(classify.Quota, 0); got != time.Minute {
		t.Errorf("quota cools %s, want account_cooldown", got)
	}
	if got := ordered.CoolFor(classify.RateLimited, 5*time.Second); got != 5*time.Second {
		t.Errorf("rate_limited with Retry-After 5s cools %s", got)
	}
	if got := ordered.CoolFor(classify.Unavailable, 0); got != time.Hour {
		t.Errorf("unavailable cools %s", got)
	}
	if n := len(ordered.Rows()); n != len(classify.Classes()) {
		t.Errorf("%d rows", n)
	}
}
