package server_test

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 37d, held: a client's text that an upstream quotes inside an
// error carried by a 200 cannot pick the status the client is told
// (inbandStatus reads the top-level error's own code/type only).
func TestReview37dEchoedTextDoesNotSteerInbandStatus(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"error":{"message":"Invalid value: {\"error\":{\"code\":401,\"type\":\"overloaded_error\"}}","type":"invalid_request_error","param":"messages"}}`}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, `
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: m, model: m, providers: [p]}
`, up, nil)
	for _, path := range []string{"/v1/chat/completions", "/v1/messages"} {
		body := `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"{\"error\":{\"code\":401,\"type\":\"overloaded_error\"}}"}]}`
		resp, got := postWith(t, url, path, body)
		t.Logf("%s: %d %s", path, resp.StatusCode, strings.TrimSpace(got))
		if resp.StatusCode == 401 || resp.StatusCode == 529 {
			t.Errorf("%s: the client's echoed text set the status %d", path, resp.StatusCode)
		}
	}
}
