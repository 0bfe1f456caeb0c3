package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Operator review 56: replica b read an account's quota cooldown; the
// operator topped up and reset it through replica a; b served nothing
// touching the account since, so its copy stayed the cooldown; Redis then
// restarted empty, and b's next request wrote that copy back over the
// reset: the fleet refused the topped-up account for the rest of the hour.
// b now reads again, every few seconds, the records it holds open
// (Refresh), and learns of the reset before Redis loses anything.
func TestOperator56AResetIsNotUndoneByAStaleCopy(t *testing.T) {
	for _, refreshed := range []bool{false, true} {
		srv := redistest.Start(t)
		c := newClock()
		a := New(newRedisStore(t, srv, "op56:", c.Now, nil), Settings{}, all3, c.Now)
		bs := newRedisStore(t, srv, "op56:", c.Now, nil)
		b := New(bs, Settings{}, all3, c.Now)
		a.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
		if st := view1(b, epC); st.Phase != Cooling {
			t.Fatalf("b sees %+v, want the account cooling", st)
		}
		c.Advance(time.Minute)
		a.ForgetAccount(ctx, epC.Provider) // POST /v1/health/reset on a
		if st := view1(a, epC); st.Phase != Healthy {
			t.Fatalf("after the reset a sees %+v", st)
		}
		c.Advance(5 * time.Second)
		if refreshed {
			bs.Refresh(ctx) // b's timer
		}
		srv.Kill()
		srv.Start(t)
		st := view1(b, epC) // b's next request
		switch {
		case refreshed && st.Phase != Healthy:
			t.Errorf("after b refreshed, Redis restarting empty brought the reset cooldown back: %+v", st)
		case !refreshed && st.Phase != Cooling:
			// Without the refresh b cannot know: this is the case the
			// timer is for (and that the write-back of review 40d still
			// serves: a replica that knows a running cooldown keeps it).
			t.Errorf("without a refresh b's copy is the cooldown, written back: got %+v", st)
		}
		if st := view1(a, epC); refreshed && st.Phase != Healthy {
			t.Errorf("a sees %+v after the restart, want the reset to hold", st)
		}
	}
}

// Refresh leaves a key Redis does not hold as it is: a timer does not
// write records back (a removed provider's would live for ever, and each
// one would say Redis lost its state).
func TestRefreshWritesNothingBack(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	bs := newRedisStore(t, srv, "op56b:", c.Now, nil)
	b := New(bs, Settings{}, all3, c.Now)
	b.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour})
	srv.Kill()
	srv.Start(t)
	bs.Refresh(ctx)
	if n, err := srv.Client(t).DBSize(ctx).Result(); err != nil || n != 0 {
		t.Errorf("Refresh wrote %d keys to an empty Redis (%v)", n, err)
	}
	if st := view1(b, epC); st.Phase != Cooling { // a request's read still writes the running cooldown back
		t.Errorf("b's next request sees %+v, want the cooldown written back", st)
	}
}
