package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// /metrics tells the truth at scrape time: every endpoint's state is there
// before any request, and a cooldown shows as soon as it happened; requests,
// attempts by class and failovers are counted.
func TestMetricsShowStatesAndCounts(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"gone": script(corpus(t, "openrouter-no-endpoints-found-free")),
		"up":   script(ok("model-b", "hi")),
	})
	g := start(t, `
providers:
  - {name: gone, dialect: openai, base_url: "{gone}", api_key: `+secret+`}
  - {name: up, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [gone]}
  - {name: b, model: model-b, providers: [up]}
routes:
  - {name: r, strategy: fastest, targets: [a, b]}
`, fs)
	scrape := func() string { return string(g.raw(t, http.MethodGet, "/metrics", "").Body) }
	m := scrape()
	for _, want := range []string{
		`detour_endpoint_state{provider="gone",state="healthy",target="a"} 1`,
		`detour_endpoint_state{provider="up",state="healthy",target="b"} 1`,
		`detour_account_state{provider="gone",state="healthy"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("fresh gateway: /metrics lacks %s", want)
		}
	}
	g.post(t, "r", "").wantStatus(t, 200)
	g.recs.wait(t, 1)
	m = scrape()
	for _, want := range []string{
		`detour_endpoint_state{provider="gone",state="cooling",target="a"} 1`,
		`detour_endpoint_state{provider="gone",state="healthy",target="a"} 0`,
		`detour_attempts_total{class="unavailable",provider="gone",target="a"} 1`,
		`detour_attempts_total{class="ok",provider="up",target="b"} 1`,
		`detour_failovers_total{action="next_target",class="unavailable",route="r"} 1`,
		`detour_requests_total{outcome="ok",route="r",status="2xx"} 1`,
		`detour_cooldowns_total{class="unavailable",provider="gone",scope="endpoint",target="a"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("after a failover: /metrics lacks %s", want)
		}
	}
	if t.Failed() {
		var lines []string
		for _, l := range strings.Split(m, "\n") {
			if strings.HasPrefix(l, "detour_") && !strings.Contains(l, "_bucket") {
				lines = append(lines, l)
			}
		}
		t.Logf("detour series:\n%s", strings.Join(lines, "\n"))
	}
}

// A move the budget then stops is not a failover: the metric counts moves
// that happened.
func TestFailoverMetricCountsOnlyMovesMade(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(corpus(t, "openai-insufficient-quota-429")),
		"q": script(ok("model-b", "hi")),
	})
	g := start(t, twoTargets, fs)
	g.post(t, "r", "", "X-Detour-Max-Attempts", "1").wantStatus(t, 429)
	wantSteps(t, g.recs.wait(t, 1), "a/p quota stop")
	if m := string(g.raw(t, http.MethodGet, "/metrics", "").Body); strings.Contains(m, "detour_failovers_total{") {
		t.Errorf("a failover was counted though the budget stopped the move")
	}
}

// A cooldown says why it began: an account's quota is counted on the
// account, by class, so an operator can alert on "an account ran out of
// money" apart from "an endpoint is down".
func TestMetricsCountCooldownsByScopeAndClass(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(corpus(t, "openai-insufficient-quota-429")),
		"q": script(ok("model-b", "hi")),
	})
	g := start(t, twoTargets, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	g.recs.wait(t, 1)
	m := string(g.raw(t, http.MethodGet, "/metrics", "").Body)
	want := `detour_cooldowns_total{class="quota",provider="p",scope="account",target="none"} 1`
	if !strings.Contains(m, want) {
		t.Errorf("/metrics lacks %s", want)
	}
	if strings.Contains(m, `detour_cooldowns_total{class="quota",provider="p",scope="endpoint"`) {
		t.Errorf("an account's quota was counted as an endpoint's cooldown too")
	}
}
