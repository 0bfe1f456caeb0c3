package health

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
)

// Review 56: Refresh (redis.go) read the open keys with one MGET and then
// put what it read into the local copy, unconditionally (now only where
// the copy is still the one it held before the read: Memory.swap). An update this
// same replica makes to one of those keys between the MGET's answer and the
// put (a request's close, an operator's reset through this replica) is
// overwritten in the local copy by the older value: the copy goes back to
// the cooldown that was just ended. Redis restarting empty (or becoming
// unreachable) before the next refresh then brings the ended cooldown back
// through the write-back (absorb) — the operator-review-56 failure Refresh
// was added to prevent, now caused by Refresh itself. The interleaving is
// forced here with a go-redis hook that runs the reset right after the
// MGET has answered and before Refresh uses the answer.
type afterMGet struct {
	armed atomic.Bool
	fire  func()
}

func (h *afterMGet) DialHook(next redis.DialHook) redis.DialHook { return next }
func (h *afterMGet) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		err := next(ctx, cmd)
		if cmd.Name() == "mget" && h.armed.CompareAndSwap(true, false) {
			h.fire()
		}
		return err
	}
}
func (h *afterMGet) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

func TestReview56RefreshLeavesAConcurrentResetAlone(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	bs := newRedisStore(t, srv, "r56:", c.Now, nil)
	b := New(bs, Settings{}, all3, c.Now)
	b.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
	if st := view1(b, epC); st.Phase != Cooling {
		t.Fatalf("b sees %+v, want the account cooling", st)
	}
	c.Advance(time.Minute)
	h := &afterMGet{fire: func() { b.ForgetAccount(ctx, epC.Provider) }} // POST /v1/health/reset on b, meanwhile
	bs.client.AddHook(h)
	h.armed.Store(true)
	bs.Refresh(ctx) // b's 5 s timer
	if h.armed.Load() {
		t.Fatal("the hook did not run (Refresh sent no MGET)")
	}
	if raw, _ := srv.Client(t).Get(ctx, "r56:"+acctKey(epC.Provider)).Result(); decode(raw).LastCooldown != 0 {
		t.Fatalf("Redis does not hold the reset: %s", raw)
	}
	local := bs.local.get(acctKey(epC.Provider))
	if local.LastCooldown != 0 || !local.CoolUntil.IsZero() {
		t.Errorf("after the reset, b's local copy is the ended cooldown again (until %v)", local.CoolUntil)
	}
	srv.Kill()
	srv.Start(t)
	if st := view1(b, epC); st.Phase != Healthy {
		t.Errorf("Redis restarted empty after b's reset: b wrote the reset cooldown back: %+v", st)
	}
}
