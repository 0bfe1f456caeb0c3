package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Other vendors' SDKs pointed at Detour by a base URL (probe 68j,
// e2e/testdata/node/vendors.mjs): Mistral's @mistralai/mistralai, which
// Speakeasy generated and which validates every answer against Mistral's
// schema, and Groq's groq-sdk, whose paths are /openai/v1/... under the
// host. A whole and a streamed answer, a tool loop (whole and streamed),
// JSON output, through every upstream kind; then Detour's failures, each
// client with its own retries on.

// vendorsCfg is nodeCfg's with routes that fail: an upstream's 429 with
// Retry-After: 1, a spent allowance (a 429 no retry helps), and a
// max_body_bytes the "big" case passes.
func vendorsCfg(kind, up string) string {
	cfg := strings.Replace(nodeCfg(kind, up), "client_keys: [test]", "client_keys: [test]\nmax_body_bytes: 32768", 1)
	cfg = strings.Replace(cfg, "providers:\n", `providers:
  - {name: lim, dialect: openai, base_url: "{lim}", api_key: `+secret+`}
  - {name: spent, dialect: openai, base_url: "{spent}", api_key: `+secret+`}
`, 1)
	cfg = strings.Replace(cfg, "targets:\n", `targets:
  - {name: limited, model: gpt-4o-mini, providers: [lim]}
  - {name: spent, model: gpt-4o-mini, providers: [spent]}
`, 1)
	return cfg + `  - {name: limited-route, targets: [limited]}
  - {name: quota-route, targets: [spent]}
`
}

func TestNodeVendorSDKs(t *testing.T) {
	for _, kind := range nodeKinds {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			up, err := clienttest.NewRecorder(nodeReply, &clienttest.ToolCall{Name: "get_weather", Input: json.RawMessage(`{"location":"Paris"}`)})
			if err != nil {
				t.Fatal(err)
			}
			up.Object = clienttest.Object
			t.Cleanup(up.Close)
			fs := fakes(t, map[string]upstreamtest.Script{
				"lim":   script(upstreamtest.Step{Status: 429, Body: limitedBody["openai"], Header: map[string]string{"Retry-After": "1"}}),
				"spent": script(upstreamtest.Step{Status: 429, Body: `{"error":{"message":"You exceeded your current quota, please check your plan and billing details.","type":"insufficient_quota","code":"insufficient_quota"}}`}),
			})
			g := start(t, vendorsCfg(kind, up.URL), fs)
			env := []string{"DETOUR_CLIENTS=mistral,groq"}
			if kind == "openai" { // the failures are Detour's, whatever the kind: once
				env = append(env, "DETOUR_RETRIES=2", "DETOUR_ERROR_ROUTES=limited=limited-route,quota=quota-route,unknown=no-such-route,big=detour-route")
			}
			res := clienttest.RunNode(t, g.URL, "vendors.mjs", env...)
			if testing.Verbose() {
				t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			for _, c := range []string{"mistral", "groq"} {
				for _, name := range []string{c + "_chat", c + "_stream"} {
					var r struct {
						Text, Finish string
					}
					if res.Case(t, name, &r) && (r.Text != nodeReply || r.Finish != "stop") {
						t.Errorf("%s: %+v", name, r)
					}
				}
				for _, name := range []string{c + "_tools", c + "_stream_tools"} {
					if c == "mistral" && name == "mistral_stream_tools" && kind != "gemini" {
						// Mistral's schema wants every tool-call delta to carry
						// the function's name; OpenAI's stream (passed through)
						// and a Claude call's translated stream name it in the
						// first fragment alone, as the openai SDK, the AI SDK
						// and LangChain read them. Gemini's calls come whole.
						var e struct{ Error clienttest.NodeError }
						if json.Unmarshal(res.Cases[name], &e) != nil || !strings.Contains(e.Error.Message, `"name"`) {
							t.Errorf("%s: %s, want the SDK's schema refusing a fragment without the name (docs/doors.md)", name, res.Cases[name])
						}
						continue
					}
					var r struct {
						Text, Finish string
						Calls        []weatherCall `json:"calls"`
					}
					if !res.Case(t, name, &r) {
						continue
					}
					wantWeather(t, name, r.Calls)
					if strings.HasSuffix(name, "_stream_tools") && r.Finish != "tool_calls" || !strings.HasSuffix(name, "_stream_tools") && (r.Text != nodeReply || r.Finish != "stop") {
						t.Errorf("%s: %+v", name, r)
					}
				}
				for _, name := range []string{c + "_json", c + "_json_schema"} {
					var r struct {
						Object struct {
							City  string `json:"city"`
							Sunny bool   `json:"sunny"`
						} `json:"object"`
					}
					if res.Case(t, name, &r) && (r.Object.City != "Paris" || !r.Object.Sunny) {
						t.Errorf("%s: %+v", name, r)
					}
				}
			}
			if kind != "openai" {
				return
			}
			type failed struct {
				Failure struct {
					clienttest.NodeError
					Headers map[string]string `json:"headers"`
				} `json:"failure"`
				Sent int `json:"sent"`
				MS   int `json:"ms"`
			}
			for _, c := range []string{"mistral", "groq"} {
				for _, stream := range []string{"", "_stream"} {
					get := func(what string) failed {
						var f failed
						name := c + "_error_" + what + stream
						if err := json.Unmarshal(res.Cases[name], &f); err != nil || f.Failure.Status == 0 {
							t.Errorf("%s: %s (%v), want a failure", name, res.Cases[name], err)
						}
						return f
					}
					// A 429 with Retry-After: 1, retried twice a second apart.
					if f := get("limited"); f.Failure.Status != 429 || f.Failure.Code != "rate_limit_exceeded" || f.Sent != 3 || f.MS < 1900 {
						t.Errorf("%s limited%s: %+v, want 429 rate_limit_exceeded sent 3 times a second apart", c, stream, f)
					}
					// x-should-retry: false; Speakeasy's retries ignore it.
					if f := get("quota"); f.Failure.Status != 429 || f.Failure.Code != "insufficient_quota" || f.Failure.Headers["x-should-retry"] != "false" || c == "groq" && f.Sent != 1 {
						t.Errorf("%s quota%s: %+v, want 429 insufficient_quota, x-should-retry: false (groq-sdk: sent once)", c, stream, f)
					}
					if f := get("unknown"); f.Failure.Status != 404 || f.Failure.Code != "model_not_found" || f.Sent != 1 {
						t.Errorf("%s unknown%s: %+v", c, stream, f)
					}
					if f := get("big"); f.Failure.Status != 413 || f.Failure.Code != "request_too_large" || f.Sent != 1 {
						t.Errorf("%s big%s: %+v", c, stream, f)
					}
				}
			}
		})
	}
}
