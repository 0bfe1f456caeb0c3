package metrics

import "testing"

// Tokens and cost are counted by client, route, target and provider; a
// reload that removes a client key removes its series.
func TestUsageSeries(t *testing.T) {
	m := New()
	m.Retain(Served{Routes: []string{"r"}, Targets: []string{"t"}, Providers: []string{"p"},
		Endpoints: []Endpoint{{"t", "p"}}, Clients: []string{"team-a", "ci"}})
	m.Usage("team-a", "r", "t", "p", 600, 400, 300, 200)
	m.Cost("team-a", "r", "t", "p", 0.004, true)
	m.Cost("team-a", "r", "t", "p", 0, false)
	m.Refused("ci", "usd_per_day")
	f := scrape(t, m)
	for _, c := range []struct {
		name   string
		labels []string
		want   float64
	}{
		{"detour_tokens_total", []string{"client=team-a", "route=r", "target=t", "provider=p", "kind=input"}, 600},
		{"detour_tokens_total", []string{"client=team-a", "route=r", "target=t", "provider=p", "kind=cached_input"}, 400},
		{"detour_tokens_total", []string{"client=team-a", "route=r", "target=t", "provider=p", "kind=cache_write_input"}, 300},
		{"detour_tokens_total", []string{"client=team-a", "route=r", "target=t", "provider=p", "kind=output"}, 200},
		{"detour_cost_usd_total", []string{"client=team-a", "route=r", "target=t", "provider=p"}, 0.004},
		{"detour_cost_unknown_total", []string{"client=team-a", "route=r", "target=t", "provider=p"}, 1},
		{"detour_limit_refusals_total", []string{"client=ci", "limit=usd_per_day"}, 1},
	} {
		if v := counter(t, f, c.name, c.labels...); v != c.want {
			t.Errorf("%s %v = %v, want %v", c.name, c.labels, v, c.want)
		}
	}
	m.Retain(Served{Routes: []string{"r"}, Targets: []string{"t"}, Providers: []string{"p"},
		Endpoints: []Endpoint{{"t", "p"}}, Clients: []string{"team-a"}})
	f = scrape(t, m)
	if series(f, "detour_limit_refusals_total", "client=ci", "limit=usd_per_day") != nil {
		t.Error("a removed client's series is still exported")
	}
	if v := counter(t, f, "detour_tokens_total", "client=team-a", "route=r", "target=t", "provider=p", "kind=input"); v != 600 {
		t.Errorf("kept series = %v", v)
	}
}

// Token series are remembered between requests (hot.go): counts add up, a
// kind never counted has no series, and a reload that removes a client
// leaves no remembered series of it: its later tokens are not counted
// under its name.
func TestUsageSeriesRemembered(t *testing.T) {
	m := New()
	m.Retain(Served{Routes: []string{"r"}, Targets: []string{"t"}, Providers: []string{"p"},
		Endpoints: []Endpoint{{"t", "p"}}, Clients: []string{"team-a", "ci"}})
	for range 3 {
		m.Usage("ci", "r", "t", "p", 5, 0, 0, 2)
	}
	m.Usage("ci", "r", "t", "p", 0, 0, 0, 0)
	f := scrape(t, m)
	if v := counter(t, f, "detour_tokens_total", "client=ci", "route=r", "target=t", "provider=p", "kind=input"); v != 15 {
		t.Errorf("input = %v, want 15", v)
	}
	if v := counter(t, f, "detour_tokens_total", "client=ci", "route=r", "target=t", "provider=p", "kind=output"); v != 6 {
		t.Errorf("output = %v, want 6", v)
	}
	if series(f, "detour_tokens_total", "client=ci", "route=r", "target=t", "provider=p", "kind=cached_input") != nil {
		t.Error("a kind never counted has a series")
	}
	m.Retain(Served{Routes: []string{"r"}, Targets: []string{"t"}, Providers: []string{"p"},
		Endpoints: []Endpoint{{"t", "p"}}, Clients: []string{"team-a"}})
	m.Usage("ci", "r", "t", "p", 5, 0, 0, 2)
	f = scrape(t, m)
	if series(f, "detour_tokens_total", "client=ci", "route=r", "target=t", "provider=p", "kind=input") != nil {
		t.Error("a removed client's tokens are counted under its name after the reload")
	}
}

// BenchmarkUsage: one attempt's tokens, counted on every successful
// request's path.
func BenchmarkUsage(b *testing.B) {
	m := New()
	m.Retain(Served{Routes: []string{"r"}, Targets: []string{"t"}, Providers: []string{"p"},
		Endpoints: []Endpoint{{"t", "p"}}, Clients: []string{"team-a"}})
	b.ReportAllocs()
	for b.Loop() {
		m.Usage("team-a", "r", "t", "p", 600, 0, 0, 200)
	}
}

// A client key's refusal series exist at 0 for each limit it has, before
// any refusal (operator review 52): created by its first refusal, a series
// is first seen at 1, and increase() over it misses that refusal.
func TestRefusalSeriesStartAtZero(t *testing.T) {
	m := New()
	m.Retain(Served{Clients: []string{"team-a", "free"}, Limits: map[string][]string{"team-a": {"usd_per_day", "max_concurrent"}, "free": nil}})
	f := scrape(t, m)
	for _, l := range []string{"usd_per_day", "max_concurrent"} {
		if series(f, "detour_limit_refusals_total", "client=team-a", "limit="+l) == nil {
			t.Errorf("no %s refusal series for team-a before its first refusal", l)
		}
	}
	if series(f, "detour_limit_refusals_total", "client=team-a", "limit=requests_per_minute") != nil ||
		series(f, "detour_limit_refusals_total", "client=free") != nil {
		t.Error("a series for a limit the key does not have")
	}
}
