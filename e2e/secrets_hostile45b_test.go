package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// keyEcho answers a 400 quoting the credential it received, in the shape
// given: what a debugging proxy or a misconfigured relay may send back.
// MECHANISM ONLY: the shapes are the vendors' envelopes (OpenAI's, Anthropic's,
// Gemini's, an SDK relay's "Error code: N - {…}" lead), the echo of the
// credential is not from a cited answer.
func keyEcho(shape string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		cred := r.Header.Get("Authorization")
		if k := r.Header.Get("X-Api-Key"); k != "" {
			cred = k
		}
		if k := r.Header.Get("X-Goog-Api-Key"); k != "" {
			cred = k
		}
		msg, _ := json.Marshal("Invalid header value " + cred + " for this deployment")
		var body string
		switch shape {
		case "openai":
			body = `{"error":{"message":` + string(msg) + `,"type":"invalid_request_error","param":null,"code":null}}`
		case "anthropic":
			body = `{"type":"error","error":{"type":"invalid_request_error","message":` + string(msg) + `}}`
		case "gemini":
			body = `{"error":{"code":400,"message":` + string(msg) + `,"status":"INVALID_ARGUMENT"}}`
		case "relay":
			inner, _ := json.Marshal(`Error code: 400 - {'error': {'message': '` + "Invalid header value " + cred + `', 'type': 'invalid_request_error'}}`)
			body = `{"error":{"message":` + string(inner) + `,"type":"invalid_request_error","param":null,"code":null}}`
		case "u-escaped":
			var esc strings.Builder
			for _, c := range cred {
				esc.WriteString(`\u00` + strings.ToLower(string("0123456789ABCDEF"[c>>4])+string("0123456789ABCDEF"[c&15])))
			}
			body = `{"error":{"message":"Invalid header value ` + esc.String() + `","type":"invalid_request_error","param":null,"code":null}}`
		case "upper":
			body = `{"error":{"message":"INVALID HEADER VALUE ` + strings.ToUpper(cred) + `","type":"invalid_request_error","param":null,"code":null}}`
		case "plain":
			body = "Invalid header value " + cred
		}
		return upstreamtest.Step{Status: 400, Body: body}
	}
}

// TestHostile45bEchoedKey: an upstream that quotes the key it received
// must not hand it to the client, the decision record, /v1/health or
// /metrics.
func TestHostile45bEchoedKey(t *testing.T) {
	for _, dialect := range []string{"openai", "anthropic", "gemini"} {
		for _, shape := range []string{"openai", "anthropic", "gemini", "relay", "plain", "u-escaped", "upper"} {
			for _, stream := range []string{"", `,"stream":true`} {
				t.Run(dialect+"/"+shape+stream, func(t *testing.T) {
					fs := fakes(t, map[string]upstreamtest.Script{"p": keyEcho(shape)})
					g := start(t, `
providers:
  - {name: p, dialect: `+dialect+`, base_url: "{p}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r, targets: [a]}
`, fs)
					r := g.post(t, "r", stream)
					if lb := strings.ToLower(strings.ReplaceAll(string(r.Body), " ", "")); strings.Contains(lb, "test-secret") || strings.Contains(lb, `\u0073\u006b`) {
						t.Errorf("the client got the key: %s", r.Body)
					}
					d := g.recs.wait(t, 1)
					b, _ := json.Marshal(d)
					if lb := strings.ToLower(strings.ReplaceAll(string(b), " ", "")); strings.Contains(lb, "test-secret") || strings.Contains(lb, `\u0073\u006b`) {
						t.Errorf("the decision record holds the key: %s", b)
					}
					for _, p := range []string{"/v1/health", "/metrics"} {
						if x := g.raw(t, http.MethodGet, p, ""); strings.Contains(string(x.Body), "test-secret") {
							t.Errorf("%s holds the key", p)
						}
					}
					t.Logf("status %d, class %s, client saw %.160s", r.Status, d.Attempts[0].Class, r.Body)
				})
			}
		}
	}
}
