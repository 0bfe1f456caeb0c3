package e2e

import (
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An answer with nothing in it whose finish says the model could not give
// one (Gemini's LANGUAGE, TOO_MANY_TOOL_CALLS…, OpenRouter's finish_reason
// "error") is unknown: the walk moves on to the next target and the client
// gets that target's answer, not an empty success (docs/behaviour.md#classes).
func TestEmptyFinishMovesOn(t *testing.T) {
	for _, c := range []struct {
		name, dialect, body string
	}{
		{"gemini LANGUAGE", "gemini", `{"candidates":[{"finishReason":"LANGUAGE","index":0}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9},"modelVersion":"gemini-2.5-flash"}`},
		{"gemini TOO_MANY_TOOL_CALLS", "gemini", `{"candidates":[{"finishReason":"TOO_MANY_TOOL_CALLS","index":0}],"modelVersion":"gemini-2.5-flash"}`},
		{"finish_reason error", "openai", `{"id":"gen-1","object":"chat.completion","created":1,"model":"model-a","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error"}]}`},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(upstreamtest.Step{Body: c.body}), "q": script(ok("model-b", "from b"))})
			g := start(t, `
providers:
  - {name: p, dialect: `+c.dialect+`, base_url: "{p}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b]}
`, fs)
			r := g.post(t, "r", "")
			r.wantStatus(t, 200)
			if content, _ := r.content(t); content != "from b" {
				t.Errorf("content %q, want b's answer", content)
			}
			wantSteps(t, g.recs.wait(t, 1), "a/p unknown next_target", "b/q ok done")
		})
	}
}
