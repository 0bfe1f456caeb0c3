package metrics

import (
	"testing"
	"time"
)

// Retain deletes the series of what a reload removed — a route, a target, a
// provider, or an endpoint whose target moved to another provider — keeps
// the rest, and files late observations of removed names under "other".
func TestRetainDropsRemovedSeries(t *testing.T) {
	m := New()
	for _, e := range []Endpoint{{"a", "p"}, {"a", "q"}, {"b", "q"}} {
		m.Attempt(e.Target, e.Provider, "ok", time.Millisecond, time.Millisecond)
		m.EndpointState(e.Target, e.Provider, "healthy")
	}
	m.AccountState("p", "healthy")
	m.AccountState("q", "healthy")
	m.Request("r1", "ok", 200, time.Second)
	m.Request("r2", "ok", 200, time.Second)
	m.Alert("q", "quota", true)

	// Target b, provider q and route r2 go; target a keeps only provider p.
	m.Retain(Served{Routes: []string{"r1", "a"}, Targets: []string{"a"}, Providers: []string{"p"},
		Endpoints: []Endpoint{{"a", "p"}}})
	f := scrape(t, m)
	for _, gone := range [][]string{
		{"detour_attempts_total", "target=b", "provider=q", "class=ok"},
		{"detour_attempts_total", "target=a", "provider=q", "class=ok"},
		{"detour_endpoint_state", "target=a", "provider=q", "state=healthy"},
		{"detour_account_state", "provider=q", "state=healthy"},
		{"detour_requests_total", "route=r2", "outcome=ok", "status=2xx"},
		{"detour_alerts_total", "provider=q", "class=quota", "result=sent"},
	} {
		if series(f, gone[0], gone[1:]...) != nil {
			t.Errorf("still exported: %v", gone)
		}
	}
	if v := counter(t, f, "detour_attempts_total", "target=a", "provider=p", "class=ok"); v != 1 {
		t.Errorf("kept attempts = %v", v)
	}
	if v := gauge(t, f, "detour_endpoint_state", "target=a", "provider=p", "state=healthy"); v != 1 {
		t.Errorf("kept state = %v", v)
	}

	// An attempt still in flight on the old configuration lands as "other";
	// a state change of a removed endpoint is dropped.
	m.Attempt("b", "q", "ok", time.Millisecond, time.Millisecond)
	m.Request("r2", "ok", 200, time.Second)
	m.EndpointState("b", "q", "cooling")
	m.AccountState("q", "cooling")
	f = scrape(t, m)
	if v := counter(t, f, "detour_attempts_total", "target=other", "provider=other", "class=ok"); v != 1 {
		t.Errorf("late attempt under other = %v", v)
	}
	if v := counter(t, f, "detour_requests_total", "route=other", "outcome=ok", "status=2xx"); v != 1 ||
		series(f, "detour_requests_total", "route=r2", "outcome=ok", "status=2xx") != nil {
		t.Errorf("late request under other = %v, or r2's series came back", v)
	}
	if series(f, "detour_endpoint_state", "target=b", "provider=q", "state=cooling") != nil ||
		series(f, "detour_account_state", "provider=q", "state=cooling") != nil {
		t.Error("a removed endpoint's state came back")
	}

	// A later reload may bring a name back.
	m.Retain(Served{Routes: []string{"r1", "a", "b"}, Targets: []string{"a", "b"}, Providers: []string{"p", "q"},
		Endpoints: []Endpoint{{"a", "p"}, {"b", "q"}}})
	m.EndpointState("b", "q", "healthy")
	if v := gauge(t, scrape(t, m), "detour_endpoint_state", "target=b", "provider=q", "state=healthy"); v != 1 {
		t.Errorf("re-added endpoint state = %v", v)
	}
}
