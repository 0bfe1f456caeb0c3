package e2e

import (
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// How the JavaScript clients (e2e/testdata/node/errors.mjs) read Detour's
// failures: an upstream's 429 before anything was sent, in each client's
// own error type; a stream cut by the upstream after its first words,
// which each client must report as an error after that text, never as a
// clean end; and the Responses door's own 400.

// limitedBody is each dialect's 429 body, in its documented shape.
var limitedBody = map[string]string{
	"openai":    `{"error":{"message":"Rate limit reached for gpt-4o-mini on requests per min (RPM): Limit 3, Used 3, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`,
	"anthropic": `{"type":"error","error":{"type":"rate_limit_error","message":"Number of requests has exceeded your per-minute rate limit"}}`,
	"gemini":    `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED"}}`,
}

// cutStream is each dialect's stream that breaks after "partial ".
func cutStream(dialect string) upstreamtest.Step {
	switch dialect {
	case "anthropic":
		return upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "partial ")[:4], Cut: true}
	case "gemini":
		return upstreamtest.Step{Events: []string{`{"candidates":[{"content":{"role":"model","parts":[{"text":"partial "}]},"index":0}],"modelVersion":"gemini-2.0-flash"}`}, Cut: true}
	}
	return upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-mini", "partial ")[:2], Cut: true}
}

// cutScript answers every call with the kind's cut stream; kind
// "openai-native" (an OpenAI provider with responses: true) answers
// /responses with a Responses stream cut the same way.
func cutScript(kind string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if kind == "openai-native" && strings.HasSuffix(r.Path, "/responses") {
			evs := nativeEvents()[:4]
			evs[3] = strings.Replace(evs[3], `"delta":"native "`, `"delta":"partial "`, 1)
			return upstreamtest.Step{Events: evs, Cut: true}
		}
		return cutStream(strings.TrimSuffix(kind, "-native"))
	}
}

func nodeErrorsCfg(kind string) string {
	dialect, native := strings.TrimSuffix(kind, "-native"), strings.HasSuffix(kind, "-native")
	model := map[string]string{"openai": "gpt-4o-mini", "anthropic": "claude-sonnet-4-5", "gemini": "gemini-2.0-flash"}[dialect]
	return `
client_keys: [test]
providers:
  - {name: lim, dialect: ` + dialect + `, base_url: "{lim}", api_key: ` + secret + `, responses: ` + strconv.FormatBool(native) + `}
  - {name: cut, dialect: ` + dialect + `, base_url: "{cut}", api_key: ` + secret + `, responses: ` + strconv.FormatBool(native) + `}
targets:
  - {name: limited, model: ` + model + `, providers: [lim]}
  - {name: broken, model: ` + model + `, providers: [cut]}
routes:
  - {name: limited-route, targets: [limited]}
  - {name: broken-route, targets: [broken]}
`
}

func TestNodeClientErrors(t *testing.T) {
	for _, dialect := range []string{"openai", "openai-native", "anthropic", "gemini"} {
		t.Run(dialect, func(t *testing.T) {
			t.Parallel()
			fs := fakes(t, map[string]upstreamtest.Script{
				"lim": script(upstreamtest.Step{Status: 429, Body: limitedBody[strings.TrimSuffix(dialect, "-native")], Header: map[string]string{"Retry-After": "7"}}),
				"cut": cutScript(dialect),
			})
			g := start(t, nodeErrorsCfg(dialect), fs)
			res := clienttest.RunNode(t, g.URL, "errors.mjs", "DETOUR_MODEL=limited-route", "DETOUR_STREAM_MODEL=broken-route")
			if testing.Verbose() {
				t.Logf("stdout: %s\nstderr: %s", res.Stdout, res.Stderr)
			}
			for name, class := range map[string]string{
				"openai_chat": "RateLimitError", "openai_responses": "RateLimitError", "anthropic": "RateLimitError",
			} {
				if e := res.CaseError(t, name); e.Class != class || e.Status != 429 {
					t.Errorf("%s: %+v, want %s with status 429", name, e, class)
				}
			}
			if e := res.CaseError(t, "anthropic"); e.Type != "rate_limit_error" {
				t.Errorf("anthropic: type %q", e.Type)
			}
			for _, p := range []string{"ai_responses", "ai_chat", "ai_anthropic", "ai_compat"} {
				if e := res.CaseError(t, p); e.Status != 429 {
					t.Errorf("%s: %+v, want an APICallError with status 429", p, e)
				}
			}
			if e := res.CaseError(t, "openai_responses_store"); e.Class != "BadRequestError" || e.Status != 400 {
				t.Errorf("store: true: %+v", e)
			}
			// A cut stream: the words sent, then an error, never a clean end.
			for _, name := range []string{"openai_chat_stream", "openai_responses_stream", "anthropic_stream",
				"ai_responses_stream", "ai_chat_stream", "ai_anthropic_stream", "ai_compat_stream"} {
				var c struct {
					Text   string                `json:"text"`
					Finish string                `json:"finish"`
					Types  []string              `json:"types"`
					Error  *clienttest.NodeError `json:"error"`
				}
				if err := json.Unmarshal(res.Cases[name], &c); err != nil {
					t.Errorf("%s: %v: %s", name, err, res.Cases[name])
					continue
				}
				// The openai SDK hands response.failed to the caller as an
				// event, as it does from OpenAI itself.
				failed := c.Error != nil || c.Finish == "error" || slices.Contains(c.Types, "response.failed")
				if c.Text != "partial " || !failed {
					t.Errorf("%s: %s, want the text before the cut and then an error", name, res.Cases[name])
				}
				// The client parsed Detour's error event as the failure it
				// reports, with the message, not as a malformed event.
				if c.Error != nil && (!strings.Contains(c.Error.Message, "stream was cut") || strings.Contains(c.Error.Message, "validation")) {
					t.Errorf("%s: the client reported %+v, not the failure Detour sent", name, *c.Error)
				}
			}
		})
	}
}
