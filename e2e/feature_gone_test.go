package e2e

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestRetiredFeatureCoolsNothing: xAI answers 410 Gone ("Live search is
// deprecated. Please switch to the Agent Tools API", from the corpus) to a
// request that carries its retired search_parameters, and answers every
// other request. A 410 read by its status alone retired the endpoint for a
// day: one client's request cooled xAI for everyone. The attempt is
// unknown, the request moves on to b, and p answers the next request
// first (docs/behaviour.md, "A gone model is the model, not a feature of
// it").
func TestRetiredFeatureCoolsNothing(t *testing.T) {
	gone := corpus(t, "xai-410-live-search-deprecated-switch-to-agent-tools-api")
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"search_parameters"`) {
				return gone
			}
			return ok("model-a", "p")
		},
		"q": script(ok("model-b", "q")),
	})
	g := start(t, twoTargets, fs)
	g.raw(t, http.MethodPost, "/v1/chat/completions",
		`{"model":"r","messages":[{"role":"user","content":"news?"}],"search_parameters":{"mode":"auto"}}`).wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	if len(d.Attempts) == 0 || d.Attempts[0].Provider != "p" || d.Attempts[0].Class != "unknown" {
		t.Fatalf("attempts %+v, want a/p unknown first", d.Attempts)
	}
	for _, e := range g.health(t).Endpoints {
		if e.Provider == "p" && (e.LastClass == "unavailable" || e.CooldownUntil != nil && time.Until(*e.CooldownUntil) > time.Minute) {
			t.Errorf("endpoint a/p cooled by one client's retired feature: %s (last %s) until %v", e.State, e.LastClass, e.CooldownUntil)
		}
	}
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 2), "a/p ok done")
}
