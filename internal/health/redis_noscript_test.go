package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// An operator whose Redis user may read and write but not run scripts
// (`-@scripting`) relies on health being shared all the same, as it was
// before updates became one script: the refusal is said once, updates fall
// back to WATCH/MULTI transactions, and another replica sees every verdict
// (review 41i: each update was an outage, nothing was shared, and the log
// said "unreachable" and "back" every second).
func TestRedisUserWithoutScriptsStillShares(t *testing.T) {
	srv := redistest.Start(t)
	admin := srv.Client(t)
	if err := admin.Do(ctx, "ACL", "SETUSER", "noscript", "on", ">pw", "~*", "+@all", "-@scripting").Err(); err != nil {
		t.Fatal(err)
	}
	c := newClock()
	var log logBuf
	st := newStore(t, RedisConfig{URL: srv.URL(), Username: "noscript", Password: "pw"}, "ns:", c.Now, &log)
	tr := New(st, Settings{FailureThreshold: 1, Cooldown: time.Minute}, all3, c.Now)
	other := New(newRedisStore(t, srv, "ns:", c.Now, nil), Settings{FailureThreshold: 1, Cooldown: time.Minute}, all3, c.Now)
	for range 5 {
		view1(tr, epA)
		tr.Report(ctx, epA, Report{OK: true, Latency: time.Millisecond})
		tr.Report(ctx, epB, Report{Class: "server_error", Count: true})
		c.Advance(2 * time.Second)
	}
	if !st.Shared() {
		t.Errorf("the store stopped sharing; log:\n%s", log.String())
	}
	if n := log.Count("level=WARN"); n != 1 || log.Count("may not run scripts") != 1 {
		t.Errorf("%d warnings, want the refusal said once; log:\n%s", n, log.String())
	}
	if st := view1(other, epB); st.Phase != Cooling {
		t.Errorf("another replica sees %v for the endpoint this one cooled; want cooling", st.Phase)
	}
	if st := view1(other, epA); !st.Measured {
		t.Errorf("another replica sees no latency for the endpoint this one measured: %+v", st)
	}
}
