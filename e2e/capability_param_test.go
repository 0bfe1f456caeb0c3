package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestCapabilityGapWithParamMovesOn: a self-hosted server that lacks a
// feature says so and names the member in `param` (text-generation-webui's
// OpenAI API: "functions is not supported.", classify/vocab27_test.go). Read
// as the client's bad input, an ordered route stopped at the first target
// and told the client not to retry, though the next target serves the
// feature. A capability gap outranks a bare param now (docs/behaviour.md):
// the walk moves on, nothing cools, and the client is served.
func TestCapabilityGapWithParamMovesOn(t *testing.T) {
	gap := upstreamtest.Step{Status: 400, Body: `{"error":{"message":"functions is not supported.","type":"invalid_request_error","param":"functions","code":null}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"p1": script(gap, ok("model-a", "hi")), "q": script(ok("model-b", "hi"))})
	g := start(t, oneEach, fs)
	g.post(t, "r", `,"functions":[{"name":"lookup","parameters":{"type":"object"}}]`).wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), "a/p1 unknown next_target", "b/q ok done")
	// Nothing cooled: the next request without functions is served by p1.
	if h, ok := g.health(t).Endpoint("a", "p1"); !ok || h.State == "cooling" || h.CooldownUntil != nil {
		t.Errorf("the endpoint after one request it lacked a feature for: %+v", h)
	}
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 2), "a/p1 ok done")
}
