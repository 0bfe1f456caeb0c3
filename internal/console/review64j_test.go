package console

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/health"
)

// Review 64j. An attempt Detour did not send is no upstream's answer
// (decision.Unsent): it stays out of the Unknowns and --suggest, and the
// decision view reads "not sent". Nor is it the endpoint's last failure on
// the health page: it read as if an endpoint Detour never called had
// failed, unknown/translate (or allowance, a moment's memory pressure
// beside other requests), and hid its real last failure.
func TestReview64jUnsentIsNotTheEndpointsLastFailure(t *testing.T) {
	c := New(Options{Size: 10})
	now := time.Now()
	// The endpoint's real last failure: a 503.
	c.Write(&decision.Decision{ID: decision.NewID(), Time: now, Route: "r", Outcome: "ok",
		Attempts: []decision.Attempt{
			{Target: "claude", Provider: "anthropic", Status: 503, Class: "server_error", Evidence: "status:503", Action: "next"},
			{Target: "gpt", Provider: "openai", Status: 200, Action: "done"},
		}})
	// Then a request whose audio part Anthropic's dialect cannot express:
	// Detour never called it.
	c.Write(&decision.Decision{ID: decision.NewID(), Time: now.Add(time.Second), Route: "r", Outcome: "ok",
		Attempts: []decision.Attempt{
			{Target: "claude", Provider: "anthropic", Status: 0, Class: "unknown", Evidence: decision.EvidenceUntranslated, Action: "next",
				Message: "Detour could not translate the request for anthropic: anthropic: unsupported content part type \"…\""},
			{Target: "gpt", Provider: "openai", Status: 200, Action: "done"},
		}})
	ep, _ := c.lastFailures()
	f, ok := ep[health.Key{Target: "claude", Provider: "anthropic"}]
	if !ok {
		t.Fatal("the endpoint's 503 was forgotten")
	}
	if decision.Unsent(f.Evidence) {
		t.Errorf("the health page's last failure of anthropic is an attempt Detour never sent (%s %s), not its 503", f.Class, f.Evidence)
	}
}
