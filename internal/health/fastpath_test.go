package health

import (
	"fmt"
	"reflect"
	"testing"
	"time"
)

// asStore hides a *Memory behind the Store interface, so the Tracker takes
// the path every other store takes.
type asStore struct{ Store }

// The memory store is read in place (View, a success's Report); what a
// Tracker says is the same as through the Store interface: every status,
// every transition, for routes of up to and past viewPooled endpoints.
func TestMemoryFastPathSaysWhatTheStoreSays(t *testing.T) {
	for _, n := range []int{1, 3, viewPooled, viewPooled + 1, 20} {
		keys := make([]Key, n)
		for i := range keys {
			keys[i] = Key{fmt.Sprintf("t%d", i), fmt.Sprintf("p%d", i%3)}
		}
		c := newClock()
		s := Settings{FailureThreshold: 2, Cooldown: time.Minute, MaxCooldown: time.Hour}
		fast := New(NewMemory(), s, keys, c.Now)
		slow := New(asStore{NewMemory()}, s, keys, c.Now)
		step := func(what string, do func(tr *Tracker) any) {
			t.Helper()
			if f, sl := do(fast), do(slow); !reflect.DeepEqual(f, sl) {
				t.Fatalf("%d endpoints, %s: memory %+v, store %+v", n, what, f, sl)
			}
		}
		for i, k := range keys {
			step("ok", func(tr *Tracker) any {
				return tr.Report(ctx, k, Report{OK: true, Latency: time.Duration(i+1) * time.Millisecond})
			})
			switch i % 4 {
			case 0:
				step("unavailable", func(tr *Tracker) any {
					return tr.Report(ctx, k, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Minute})
				})
			case 1:
				step("quota", func(tr *Tracker) any {
					return tr.Report(ctx, k, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Minute, Count: true})
				})
			}
		}
		step("view", func(tr *Tracker) any { return tr.View(ctx, keys) })
		c.Advance(2 * time.Minute) // cooldowns over: probing
		step("view probing", func(tr *Tracker) any { return tr.View(ctx, keys) })
		for _, k := range keys {
			step("ok after cooling", func(tr *Tracker) any { return tr.Report(ctx, k, Report{OK: true, Latency: time.Millisecond}) })
		}
		step("view healed", func(tr *Tracker) any { return tr.View(ctx, keys) })
	}
}
