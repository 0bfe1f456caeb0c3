package e2e

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A client that names a model of its own in another member of its request
// (here a Responses tool's model) gets the upstream's "model … does not
// exist" at once, and nothing cools: the endpoint's own model is not gone
// (docs/behaviour.md, "Not found: whose?").
func TestResponsesClientNamedToolModelNeverCools(t *testing.T) {
	const toolModel = "house-image-gen"
	gone := upstreamtest.Step{Status: 404, Body: "{\"error\":{\"message\":\"The model `" + toolModel +
		"` does not exist or you do not have access to it.\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}"}
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if bytes.Contains(r.Body, []byte(toolModel)) {
				return gone
			}
			return upstreamtest.Step{Body: nativeAnswer}
		},
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, responsesNativeCfg, fs)
	for range 4 { // more than failure_threshold, were it counted
		r := g.raw(t, http.MethodPost, "/v1/responses",
			`{"model":"agent","input":"draw it","tools":[{"type":"image_generation","model":"`+toolModel+`"}],"store":false}`)
		r.wantStatus(t, http.StatusNotFound)
		if c := r.Header.Get("X-Detour-Class"); c != "bad_request" {
			t.Errorf("X-Detour-Class %q, want bad_request", c)
		}
	}
	if n := fs["anthropic"].Calls(); n != 0 {
		t.Errorf("a client's own tool model walked the route: %d calls to the next target", n)
	}
	wantHealthy(t, g, "gpt", "openai")
	r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"agent","input":"hi","store":false}`)
	r.wantStatus(t, 200)
	if string(r.Body) != nativeAnswer {
		t.Errorf("the next request got %s, want the native target's answer", r.Body)
	}
}
