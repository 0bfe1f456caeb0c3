package e2e

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 30e. docs/behaviour.md: llama.cpp's "Failed to parse messages:
// Unsupported content part type: \"image_url\"" (a 500) is unknown — a
// content part this model does not take — and cools nothing (commit
// 9056dbe: "a client's image to a text-only model was a 500 server_error
// that cooled the endpoint"). The fix reads the reason only when llama.cpp's
// "; messages = <dump>" follows it, but the current llama-server writes no
// dump (common/chat.cpp: "disable otherwise it's bloating the API
// response"): its answer is still server_error, and a client that sends
// two images cools the text-only endpoint for everyone.
func TestImageToCurrentLlamaCppDoesNotCool(t *testing.T) {
	llama := upstreamtest.Steps(upstreamtest.Step{Status: 500,
		Body: `{"error":{"code":500,"message":"Failed to parse messages: Unsupported content part type: \"image_url\"","type":"server_error"}}`})
	fs := fakes(t, map[string]upstreamtest.Script{"local": llama})
	g := start(t, `
health: {failure_threshold: 2}
providers:
  - {name: local, dialect: openai, base_url: "{local}", api_key: `+secret+`}
targets:
  - {name: a, model: llama-4-scout, providers: [local]}
routes:
  - {name: r, targets: [a]}
`, fs)
	body := `{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"desc this pic?"},` +
		`{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo"}}]}]}`
	for n := 1; n <= 3; n++ {
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
		if c := r.Header.Get("X-Detour-Class"); c != "unknown" {
			t.Errorf("request %d: X-Detour-Class %q, want unknown", n, c)
		}
		g.recs.wait(t, n)
	}
	for _, ep := range g.health(t).Endpoints {
		if ep.Provider == "local" && (ep.State != "healthy" || ep.Failures != 0) {
			t.Errorf("endpoint after a client's images: %+v", ep)
		}
	}
}
