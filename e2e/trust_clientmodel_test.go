package e2e

import (
	"bytes"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A client that names a model of its own in another member of its request
// (here a Responses tool's model) gets the upstream's "model … does not
// exist" at once, and nothing cools: the endpoint's own model is not gone
// (docs/behaviour.md, "Not found: whose?").
func TestResponsesClientNamedToolModelNeverCools(t *testing.T) {
	// The endpoint's model is gpt-5-mini: a variant of it, the same in
	// another case, a path ending in it, a long name and one with blanks,
	// each sent by the client, are the client's too.
	for _, toolModel := range []string{"house-image-gen", "house/gpt-5-mini", "GPT-5-MINI", "img-" + strings.Repeat("x", 300), "house image gen"} {
		t.Run(toolModel[:min(len(toolModel), 20)], func(t *testing.T) {
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
			responsesOwn404(t, start(t, responsesNativeCfg, fs), fs, "own tool model",
				`{"model":"agent","input":"draw it","tools":[{"type":"image_generation","model":"`+toolModel+`"}],"store":false}`)
		})
	}
}

// A client cannot cool the endpoint by writing Detour's exact model into a
// name of its own ("nope` model `gpt-5-mini", echoed back whole), nor by
// naming Detour's model in another case after a name of its own.
func TestResponsesClientInjectedModelNeverCools(t *testing.T) {
	for _, c := range []struct{ name, toolModel, echo, extra string }{
		{"injected exact name", "nope` model `gpt-5-mini", "The model `nope` model `gpt-5-mini` does not exist or you do not have access to it.", ""},
		{"second client name", "GPT-5-MINI", "The model `house-embed` does not exist; the model `GPT-5-MINI` does not exist.", `,"embedding_model":"house-embed"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			gone := upstreamtest.Step{Status: 404, Body: "{\"error\":{\"message\":\"" + c.echo +
				"\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"model_not_found\"}}"}
			fs := fakes(t, map[string]upstreamtest.Script{
				"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
					if bytes.Contains(r.Body, []byte(c.toolModel)) {
						return gone
					}
					return upstreamtest.Step{Body: nativeAnswer}
				},
				"anthropic": script(ok("x", "x")),
			})
			responsesOwn404(t, start(t, responsesNativeCfg, fs), fs, "own tool model",
				`{"model":"agent","input":"draw it","tools":[{"type":"image_generation","model":"`+c.toolModel+`"}],"store":false`+c.extra+`}`)
		})
	}
}
