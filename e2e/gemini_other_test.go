package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestGeminiOtherCoolsNothing: a Gemini candidate that finishes OTHER with no content
// is unknown, not server_error (counted, retried once, and after failure_threshold such
// answers the endpoint would cool for every client). Which prompts end in OTHER is
// the prompt's doing (epam/ai-dial-adapter-vertexai#85: "what are capitals
// of Latin America?" → RECITATION, OTHER), as with RECITATION, which is a
// refusal and cools nothing. One client's prompt, answered OTHER each
// time, leaves the endpoint healthy.
func TestGeminiOtherCoolsNothing(t *testing.T) {
	cfg := `
providers:
  - {name: ge, dialect: gemini, base_url: "{ge}", api_key: ` + secret + `}
health: {failure_threshold: 3}
targets:
  - {name: gem, model: gemini-2.5-flash, providers: [ge]}
routes:
  - {name: r, targets: [gem]}
`
	other := upstreamtest.Step{Body: `{"candidates":[{"finishReason":"OTHER","index":0}],"usageMetadata":{"promptTokenCount":12,"totalTokenCount":12}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"ge": func(int, upstreamtest.Request) upstreamtest.Step { return other }})
	g := start(t, cfg, fs)
	for i := 0; i < 2; i++ {
		g.raw(t, "POST", "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"what are capitals of Latin America?"}]}`)
	}
	e, _ := g.health(t).Endpoint("gem", "ge")
	t.Logf("after 2 requests (%d upstream calls): %+v", fs["ge"].Calls(), e)
	if e.State == "cooling" {
		t.Errorf("one client's prompt cooled gem/ge for every client")
	}
}
