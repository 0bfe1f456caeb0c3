package health

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// TestRedisPassword: a Redis that requires a password is shared when the
// password is given (as the state section's password key, usually from the
// environment), and served from local state, never failing, when it is not.
func TestRedisPassword(t *testing.T) {
	srv := redistest.StartWith(t, "--requirepass", "s3cret")
	c := newClock()
	var log logBuf
	good := newStore(t, RedisConfig{URL: srv.URL(), Password: "s3cret"}, "pw:", c.Now, nil)
	bad := newStore(t, RedisConfig{URL: srv.URL()}, "pw:", c.Now, &log)
	New(good, Settings{}, all3, c.Now).Report(ctx, epA, Report{Class: "unavailable", Cool: ScopeEndpoint, CoolFor: time.Hour})
	if st := view1(New(good, Settings{}, all3, c.Now), epA); st.Phase != Cooling || !good.Shared() {
		t.Fatalf("with the password: %+v, shared %v", st, good.Shared())
	}
	if st := view1(New(bad, Settings{}, all3, c.Now), epA); st.Phase != Healthy || bad.Shared() {
		t.Fatalf("without the password: %+v, shared %v; want local state", st, bad.Shared())
	}
	if log.Count("NOAUTH") != 1 {
		t.Fatalf("want the refusal logged once, naming it:\n%s", log.String())
	}
}
