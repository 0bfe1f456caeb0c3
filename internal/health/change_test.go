package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// Store.Update and RedisStore.UpdateAlong write the records before and
// after into a *Change (and UpdateAlong the account into *other; review
// 59). On every path — Redis answering (script), Redis cut (the local
// mirror, journaled), a user without scripts (WATCH/MULTI) — ch must hold
// exactly the record before and after this update, even when the caller
// reuses a Change that holds another update's records, and other must be
// the account record only when UpdateAlong reports true.
func TestChangeOnEveryPath(t *testing.T) {
	srv := redistest.Start(t)
	admin := srv.Client(t)
	if err := admin.Do(ctx, "ACL", "SETUSER", "noscript59", "on", ">pw", "~*", "+@all", "-@scripting").Err(); err != nil {
		t.Fatal(err)
	}
	c := newClock()
	cool := func(r *Record) { r.Failures++; r.CoolUntil = c.Now().Add(time.Minute); r.LastClass = "server_error" }
	stale := Change{Before: Record{Failures: 99, LastClass: "stale"}, After: Record{Failures: 98, LastClass: "stale"}}
	acct := Record{Failures: 7, LastClass: "acct"}

	check := func(t *testing.T, st *RedisStore, key, along string, wantShared bool) {
		t.Helper()
		// Update: the first cools key (before: nothing), the second adds a failure.
		ch := stale
		if err := st.Update(ctx, key, cool, &ch); err != nil {
			t.Fatal(err)
		}
		if ch.Before != (Record{}) || ch.After.Failures != 1 || ch.After.LastClass != "server_error" {
			t.Errorf("first Update: ch = %+v, want before zero and after one failure", ch)
		}
		first := ch.After
		ch = stale
		if err := st.Update(ctx, key, cool, &ch); err != nil {
			t.Fatal(err)
		}
		if ch.Before != first || ch.After.Failures != 2 {
			t.Errorf("second Update: before %+v (want %+v), after failures %d (want 2)", ch.Before, first, ch.After.Failures)
		}
		if err := st.Update(ctx, key, cool, nil); err != nil { // nil allowed
			t.Fatal(err)
		}
		// UpdateAlong.
		ch = stale
		other := Record{LastClass: "untouched"}
		ok := st.UpdateAlong(ctx, key, along, cool, &ch, &other)
		if ch.Before.Failures != 3 || ch.After.Failures != 4 {
			t.Errorf("UpdateAlong: ch failures %d -> %d, want 3 -> 4", ch.Before.Failures, ch.After.Failures)
		}
		switch {
		case ok && other.Failures != acct.Failures:
			t.Errorf("UpdateAlong ok, other = %+v, want the account %+v", other, acct)
		case !ok && other.LastClass != "untouched":
			t.Errorf("UpdateAlong not ok, yet other was written: %+v", other)
		}
		if st.Shared() != wantShared {
			t.Errorf("shared = %v, want %v", st.Shared(), wantShared)
		}
	}

	t.Run("script", func(t *testing.T) {
		st := newRedisStore(t, srv, "r59a:", c.Now, nil)
		if err := st.Update(ctx, "{p}acct", func(r *Record) { *r = acct }, nil); err != nil {
			t.Fatal(err)
		}
		check(t, st, "{p}ep", "{p}acct", true)
	})
	t.Run("noscripts", func(t *testing.T) {
		st := newStore(t, RedisConfig{URL: srv.URL(), Username: "noscript59", Password: "pw"}, "r59b:", c.Now, nil)
		if err := st.Update(ctx, "{p}acct", func(r *Record) { *r = acct }, nil); err != nil {
			t.Fatal(err)
		}
		check(t, st, "{p}ep", "{p}acct", true)
	})
	t.Run("outage", func(t *testing.T) {
		p := redistest.StartProxy(t, srv.Addr())
		st := newStore(t, RedisConfig{URL: p.URL()}, "r59c:", c.Now, nil)
		if err := st.Update(ctx, "{p}acct", func(r *Record) { *r = acct }, nil); err != nil {
			t.Fatal(err)
		}
		p.Cut()
		check(t, st, "{p}ep", "{p}acct", false)
		if !st.journaled() {
			t.Error("a cooldown begun while Redis was cut was not journaled")
		}
		// Back: the journal writes the local cooldown back.
		p.Heal()
		c.Advance(2 * time.Second) // past retryEvery, within the cooldown
		var ch Change
		if err := st.Update(ctx, "{p}other", func(r *Record) { r.Failures = 1 }, &ch); err != nil {
			t.Fatal(err)
		}
		recs, err := newRedisStore(t, srv, "r59c:", c.Now, nil).Load(ctx, []string{"{p}ep"})
		if err != nil {
			t.Fatal(err)
		}
		if want := st.local.get("{p}ep").CoolUntil; want.IsZero() || !recs[0].CoolUntil.Equal(want) {
			t.Errorf("after the outage Redis holds %+v for the endpoint, want the cooldown until %v learned locally", recs[0], want)
		}
	})
}
