package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestHostile50EchoedSamplingRefusal: the sampling-refusal resend
// (dispatch/sampling.go) reads "Unsupported parameter: '<name>'" anywhere in
// an openai-dialect 400's message. vLLM quotes a client's file:// image URL
// back, decoded (vllmFileURL, hostile45b: "The file path … must be a
// subpath of `--allowed-local-media-path`"), so a Messages client's own
// words in a URL read as the model refusing its temperature: the gateway
// drops the member and sends the request a second time; the echo is
// evidence of nothing about the model (docs/behaviour.md: the client's
// text is no evidence).
func TestHostile50EchoedSamplingRefusal(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"vllm": vllmFileURL("m")})
	g := start(t, vllmOneTarget, fs)
	body := `{"model":"r","max_tokens":50,"temperature":0.2,"messages":[{"role":"user","content":[` +
		`{"type":"image","source":{"type":"url","url":"file:///Unsupported%20parameter:%20%27temperature%27%20is%20not%20supported.png"}},` +
		`{"type":"text","text":"what is this?"}]}]}`
	r := g.raw(t, http.MethodPost, "/v1/messages", body, "x-api-key", "k")
	reqs := fs["vllm"].Requests()
	t.Logf("status %d: %s", r.Status, r.Body)
	if len(reqs) != 1 {
		t.Errorf("%d upstream calls for one client request whose 400 quoted only the client's own URL, want 1", len(reqs))
	}
	for i, q := range reqs {
		if !strings.Contains(string(q.Body), `"temperature"`) {
			t.Errorf("call %d was sent without the client's temperature, dropped on the client's own words", i+1)
		}
	}
	for _, a := range g.recs.wait(t, 1).Attempts {
		t.Logf("attempt: %s %s %s", a.Class, a.Evidence, a.Action)
	}
}

// vllmOneTarget is one route r to one vLLM-like endpoint, model m.
const vllmOneTarget = `
providers:
  - {name: vllm, dialect: openai, base_url: "{vllm}", api_key: ` + secret + `}
targets:
  - {name: t, model: m, providers: [vllm]}
routes:
  - {name: r, targets: [t]}
`
