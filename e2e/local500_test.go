package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A self-hosted server sends a too-long prompt as a 500 (llama.cpp's
// exceed_context_size_error). That describes the request, not the server:
// however many such prompts arrive, the endpoint is not counted, cooled or
// retried, and the next request still goes to it. The client is told a 400
// (a full window is a 400 at every door since round 58: docs/behaviour.md,
// "The client's status"); the decision record keeps the upstream's 500.
func TestLocalServerContext500DoesNotCool(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"local": script(corpus(t, "llamacpp-ctx-500-exceed-context-size-error"))})
	g := start(t, `
health: {failure_threshold: 2}
providers:
  - {name: local, dialect: openai, base_url: "{local}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [local]}
routes:
  - {name: r, targets: [a]}
`, fs)
	for n := 1; n <= 3; n++ {
		r := g.post(t, "r", "")
		r.wantStatus(t, 400)
		if c := r.Header.Get("X-Detour-Class"); c != "context_length" {
			t.Errorf("request %d: X-Detour-Class %q, want context_length", n, c)
		}
		d := g.recs.wait(t, n)
		wantSteps(t, d, "a/local context_length stop")
		if a := d.Attempts[0]; a.Status != 500 {
			t.Errorf("request %d: the record says the upstream answered %d, want its 500", n, a.Status)
		}
		if a := d.Attempts[0]; a.Counted {
			t.Errorf("request %d: a too-long prompt counted against the server: %+v", n, a)
		}
	}
	if c := fs["local"].Calls(); c != 3 {
		t.Errorf("the local server got %d calls, want 3 (no retry, never skipped)", c)
	}
	for _, ep := range g.health(t).Endpoints {
		if ep.Provider == "local" && (ep.State != "healthy" || ep.Failures != 0) {
			t.Errorf("endpoint after too-long prompts: %+v", ep)
		}
	}
}
