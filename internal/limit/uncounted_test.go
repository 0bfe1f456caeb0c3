package limit

import (
	"context"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
)

// What a key spends in a window it has no budget for is kept aside, per
// window, until a reload that gives it the budget takes it (the app then
// counts it); a window that turns starts again, and taking one window
// leaves the other.
func TestUncountedSpendIsKeptPerWindow(t *testing.T) {
	clock := newClock(at("2026-12-07T23:00:00Z"))
	l := New(NewMemory(clock.Now), clock.Now)
	ctx := context.Background()
	free := key(config.ClientKey{Name: "team", Key: "k"})
	dayOnly := key(config.ClientKey{Name: "team", Key: "k", Budget: config.Budget{USDPerDay: 5}})

	l.Spend(ctx, free, 10, 0.25)      // neither window budgeted
	l.Spend(ctx, dayOnly, 10, 0.5)    // the month's alone
	l.Spend(ctx, free, 10, -3)        // nothing
	l.Spend(ctx, free, 0, math.NaN()) // nothing
	clock.Advance(2 * time.Hour)      // 2026-12-08T01:00: a new day, the same month
	l.Spend(ctx, free, 10, 0.125)     // both
	if d, m := l.TakeUncounted("team", true, false); d != 0.125 || m != 0 {
		t.Errorf("the day taken: day $%v (want the new day's $0.125), month $%v (not asked)", d, m)
	}
	if d, _ := l.TakeUncounted("team", true, false); d != 0 {
		t.Errorf("the day taken twice: $%v", d)
	}
	if _, m := l.TakeUncounted("team", false, true); m != 0.875 {
		t.Errorf("the month: $%v, want $0.875", m)
	}
	if d, m := l.TakeUncounted("other", true, true); d != 0 || m != 0 {
		t.Errorf("a key that spent nothing: $%v $%v", d, m)
	}
	both := key(config.ClientKey{Name: "team", Key: "k", Budget: config.Budget{USDPerDay: 5, USDPerMonth: 5}})
	l.Spend(ctx, both, 10, 1)
	if d, m := l.TakeUncounted("team", true, true); d != 0 || m != 0 {
		t.Errorf("a key with both budgets keeps nothing aside: $%v $%v", d, m)
	}
	clock.Advance(31 * 24 * time.Hour)
	l.Spend(ctx, free, 0, 0.5)
	clock.Advance(31 * 24 * time.Hour)
	if d, m := l.TakeUncounted("team", true, true); d != 0 || m != 0 {
		t.Errorf("what was kept aside in an earlier month: $%v $%v", d, m)
	}
}

// Review 60a: names that spent without a budget and never got one (or
// were renamed) kept their entry for ever. Once a day what is kept for
// windows that have turned goes.
func TestUncountedForgetsTurnedWindows(t *testing.T) {
	clock := newClock(at("2026-12-07T10:00:00Z"))
	l := New(NewMemory(clock.Now), clock.Now)
	for i := range 1000 {
		l.Spend(context.Background(), key(config.ClientKey{Name: "gone-" + strconv.Itoa(i), Key: "k"}), 0, 0.01)
	}
	clock.Advance(62 * 24 * time.Hour)
	l.Spend(context.Background(), key(config.ClientKey{Name: "now", Key: "k"}), 0, 0.01)
	if n := len(l.uncounted); n != 1 {
		t.Errorf("%d names kept two months on, want the one that spent now", n)
	}
}

// Operator review 60: a month's budget refusal said "it resets on the 1st
// of next month, 00:00 UTC, in 597h21m40s"; past a day it says days and
// hours. And spend restored from the log read $1.819999 for the log's
// $1.82: a restore rounds to the nearest micro-dollar, not down.
func TestOp60MonthRefusalInDaysAndRestoreRounds(t *testing.T) {
	clock := newClock(at("2026-12-07T02:38:20Z"))
	l := New(NewMemory(clock.Now), clock.Now)
	k := key(config.ClientKey{Name: "team", Key: "k", Budget: config.Budget{USDPerMonth: 1.82}})
	spent := 0.0
	for range 260 { // the log's 260 answers of $0.007, summed as the restore sums them
		spent += 0.007
	}
	l.Restore(context.Background(), k, 0, spent)
	for _, s := range l.Standings(context.Background(), k) {
		if s.Limit == "usd_per_month" && s.Used != 1.82 {
			t.Errorf("restored $1.82, the month reads $%v", s.Used)
		}
	}
	r := l.Admit(context.Background(), k)
	if r == nil || !strings.Contains(r.Message, "it resets on the 1st of next month, 00:00 UTC, in 24d 21h") {
		t.Errorf("refusal %+v; want it to say in 24d 21h", r)
	}
}
