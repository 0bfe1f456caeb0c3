package health

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// causeStores runs fn on the one-replica store and on a real
// redis-server: what /v1/health says must not depend on the store.
func causeStores(t *testing.T, fn func(t *testing.T, tr *Tracker, c *clock)) {
	s := Settings{FailureThreshold: 3, Cooldown: 10 * time.Second, MaxCooldown: 5 * time.Minute, ProbeLease: 30 * time.Second}
	t.Run("memory", func(t *testing.T) {
		c := newClock()
		m := NewMemory()
		m.SetClock(c.Now)
		fn(t, New(m, s, all3, c.Now), c)
	})
	t.Run("redis", func(t *testing.T) {
		c := newClock()
		srv := redistest.Start(t)
		fn(t, New(newRedisStore(t, srv, uniquePrefix("cause"), c.Now, nil), s, all3, c.Now), c)
	})
}

// words is a Report.Words that counts its calls.
func words(s string, calls *int) func() string {
	return func() string { *calls++; return s }
}

func endpointOf(t *testing.T, tr *Tracker, k Key) EndpointHealth {
	t.Helper()
	eps, _ := tr.Snapshot(ctx)
	for _, e := range eps {
		if e.Target == k.Target && e.Provider == k.Provider {
			return e
		}
	}
	t.Fatalf("%v not in the snapshot", k)
	return EndpointHealth{}
}

func accountOf(t *testing.T, tr *Tracker, name string) AccountHealth {
	t.Helper()
	_, accts := tr.Snapshot(ctx)
	for _, a := range accts {
		if a.Name == name {
			return a
		}
	}
	t.Fatalf("account %s not in the snapshot", name)
	return AccountHealth{}
}

// An operator reading /v1/health for an endpoint cooling a day because its
// model was retired must read that it cools for `unavailable`, in the
// upstream's own words, after any number of later timeouts there (the
// route still tries a cooling endpoint last): they neither start nor
// lengthen the day's cooldown. Before, the one class a record kept was the
// last failure's, and the endpoint read "timeout".
func TestCoolingClassSurvivesLaterFailures_review40b(t *testing.T) {
	causeStores(t, func(t *testing.T, tr *Tracker, c *clock) {
		n := 0
		tr.Report(ctx, epA, Report{Class: "unavailable", Count: true, Cool: ScopeEndpoint, CoolFor: 24 * time.Hour,
			Words: words("The model `claude-2` has been retired.", &n)})
		for range 4 {
			c.Advance(time.Minute)
			tr.Report(ctx, epA, Report{Class: "timeout", Count: true})
		}
		e := endpointOf(t, tr, epA)
		if e.State != "cooling" || e.CoolingClass != "unavailable" || e.CoolingMessage != "The model `claude-2` has been retired." {
			t.Errorf("after later timeouts: state %s, cooling_class %q, cooling_message %q; want cooling for unavailable in the upstream's words",
				e.State, e.CoolingClass, e.CoolingMessage)
		}
		if e.LastClass != "timeout" {
			t.Errorf("last_class %q: it is still the last failure's", e.LastClass)
		}
		if n != 1 {
			t.Errorf("Words called %d times, want once", n)
		}
		// The day passes: the probe is announced with the day's cause.
		c.Advance(24 * time.Hour)
		ok, trs := tr.TryProbe(ctx, epA)
		if !ok {
			t.Fatal("no probe after the cooldown")
		}
		for i := range trs {
			trs[i].Until = time.Time{}
		}
		wantTr(t, trs, Transition{Scope: ScopeEndpoint, Name: epA.String(), From: Cooling, To: Probing, Class: "unavailable"})
		if e := endpointOf(t, tr, epA); e.State != "probing" || e.CoolingClass != "unavailable" {
			t.Errorf("probing: %+v, want the cause it recovers from", e)
		}
		// A success closes it: nothing is left of the cause.
		tr.Report(ctx, epA, Report{OK: true})
		if e := endpointOf(t, tr, epA); e.State != "healthy" || e.CoolingClass != "" || e.CoolingMessage != "" {
			t.Errorf("closed: %+v, want no cause", e)
		}
	})
}

// An account cooling for its spent quota reads `quota`, with the
// provider's words ("regain access on <date>"), on the account and on
// every endpoint it holds back, whatever the endpoints failed with since;
// repeated quota answers while it cools ask for the words no more (they
// read the client's request); a different class that makes the cooldown
// end later becomes its cause, with its own words.
func TestAccountCoolingClassAndWords_review40b(t *testing.T) {
	causeStores(t, func(t *testing.T, tr *Tracker, c *clock) {
		n := 0
		const said = "You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."
		tr.Report(ctx, epA, Report{Class: "quota", Count: true, Cool: ScopeAccount, CoolFor: time.Hour, Words: words(said, &n)})
		for range 3 {
			c.Advance(time.Second)
			tr.Report(ctx, epA, Report{Class: "quota", Count: true, Cool: ScopeAccount, CoolFor: time.Hour, Words: words("other words", &n)})
		}
		c.Advance(time.Second)
		tr.Report(ctx, epB, Report{Class: "timeout", Count: true})
		if n != 1 {
			t.Errorf("Words called %d times over one cooldown, want once", n)
		}
		a := accountOf(t, tr, "anthropic")
		if a.State != "cooling" || a.CoolingClass != "quota" || a.CoolingMessage != said {
			t.Errorf("account: %+v", a)
		}
		for _, k := range []Key{epA, epB} {
			if e := endpointOf(t, tr, k); e.State != "cooling" || e.CoolingClass != "quota" || e.CoolingMessage != said {
				t.Errorf("%v: state %s, cooling_class %q, cooling_message %q; want the account's cause", k, e.State, e.CoolingClass, e.CoolingMessage)
			}
		}
		if e := endpointOf(t, tr, epC); e.State != "healthy" || e.CoolingClass != "" || e.CoolingMessage != "" {
			t.Errorf("another account's endpoint: %+v", e)
		}

		// The key is revoked meanwhile: auth's hour ends later, it is the
		// cause now.
		c.Advance(time.Minute)
		tr.Report(ctx, epB, Report{Class: "auth", Count: true, Cool: ScopeAccount, CoolFor: time.Hour, Words: words("invalid x-api-key", &n)})
		if a := accountOf(t, tr, "anthropic"); a.CoolingClass != "auth" || a.CoolingMessage != "invalid x-api-key" || a.LastClass != "auth" {
			t.Errorf("after auth: %+v", a)
		}
	})
}

// The cooldown that holds an endpoint back longest is the one it reads:
// an endpoint cooling a day for `unavailable` whose account cools an hour
// for `quota` reads unavailable; once its own cooldown is the shorter, the
// account's.
func TestEffectiveCauseIsTheLongestCooldown_review40b(t *testing.T) {
	causeStores(t, func(t *testing.T, tr *Tracker, c *clock) {
		n := 0
		tr.Report(ctx, epC, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: 24 * time.Hour, Words: words("gone", &n)})
		tr.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour, Words: words("spent", &n)})
		if e := endpointOf(t, tr, epC); e.CoolingClass != "unavailable" || e.CoolingMessage != "gone" {
			t.Errorf("day over hour: %+v", e)
		}
		if a := accountOf(t, tr, "openai"); a.CoolingClass != "quota" || a.CoolingMessage != "spent" {
			t.Errorf("account: %+v", a)
		}
		tr.Report(ctx, Key{"gpt-mini", "openai"}, Report{Class: "timeout", Cool: ScopeEndpoint, CoolFor: time.Minute})
		if e := endpointOf(t, tr, epC); e.CoolingClass != "unavailable" {
			t.Errorf("another endpoint's failure changed this one's cause: %+v", e)
		}
	})
}

// A record written before the cooldown's class was kept (a rolling
// deploy's older replica) still reads a class: its last one.
func TestCauseOfAnOlderRecord_review40b(t *testing.T) {
	c := newClock()
	m := NewMemory()
	tr := New(m, Settings{}, all3, c.Now)
	m.put(namesOf(epA).ep, Record{CoolUntil: c.Now().Add(time.Hour), LastCooldown: time.Hour, LastClass: "unavailable"})
	if e := endpointOf(t, tr, epA); e.State != "cooling" || e.CoolingClass != "unavailable" || e.CoolingMessage != "" {
		t.Errorf("older record: %+v", e)
	}
}

// A replica that learned a cooldown while Redis was unreachable writes its
// cause back with it: the other replicas read why, not only until when.
func TestCauseWrittenBackAfterAnOutage_review40b(t *testing.T) {
	srv := redistest.Start(t)
	c := newClock()
	sa := newRedisStore(t, srv, "causeout:", c.Now, nil)
	sb := newRedisStore(t, srv, "causeout:", c.Now, nil)
	a := New(sa, Settings{}, all3, c.Now)
	b := New(sb, Settings{}, all3, c.Now)
	srv.Kill()
	n := 0
	a.Report(ctx, epC, Report{Class: "quota", Cool: ScopeAccount, CoolFor: time.Hour, Words: words("insufficient_quota", &n)})
	srv.Start(t)
	c.Advance(retryEvery)
	view1(a, epA) // due for a retry: writes the journal back
	if !sa.Shared() {
		t.Fatal("a did not resume sharing")
	}
	acct := accountOf(t, b, "openai")
	if acct.State != "cooling" || acct.CoolingClass != "quota" || !strings.Contains(acct.CoolingMessage, "insufficient_quota") {
		t.Errorf("b reads %+v", acct)
	}
}
