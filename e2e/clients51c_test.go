package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/clienttest"
)

// Round 51, helper probe51c: real JS clients Detour had not been run with
// (Continue CLI, Mastra, LlamaIndex TS, LangGraph JS, the OpenRouter AI SDK
// provider), each pointed at a Detour whose routes go to Claude, Gemini
// and OpenAI upstreams on loopback.

// p51cCfg is nodeCfg's gateway with a route to each dialect's target.
func p51cCfg(up string) string {
	return nodeCfg("openai", up) + `  - {name: via-openai, targets: [gpt]}
  - {name: via-claude, targets: [claude]}
  - {name: via-gemini, targets: [gem]}
`
}

// p51cGateway is the probe's gateway over a clienttest.Recorder (which
// calls get_weather when offered, then answers nodeReply).
func p51cGateway(t *testing.T) (*gateway, *clienttest.Recorder) {
	t.Helper()
	up, err := clienttest.NewRecorder(nodeReply, &clienttest.ToolCall{Name: "get_weather", Input: json.RawMessage(`{"location":"Paris"}`)})
	if err != nil {
		t.Fatal(err)
	}
	up.Object = clienttest.Object
	t.Cleanup(up.Close)
	return start(t, p51cCfg(up.URL), nil), up
}

// TestP51cOpenRouterProviderStreamUsage: @openrouter/ai-sdk-provider
// 2.10.0, `createOpenRouter({baseURL: DETOUR/v1}).chat(route, {usage:
// {include: true}, reasoning: {effort: "low"}, provider: {...}})` with
// streamText, sends exactly this body (captured through Detour,
// /work/probe51c/capture/005.json, 013.json, 021.json): `stream: true`,
// OpenRouter's `usage: {"include": true}`, and no `stream_options` (the
// provider adds `stream_options.include_usage` only in its "strict"
// compatibility mode: dist/index.mjs getArgs/doStream). OpenRouter
// documents `usage: {include: true}` as the request for usage, which
// arrives "in the last SSE message for streaming responses"
// (https://openrouter.ai/docs/use-cases/usage-accounting; today it is
// sent always). Detour asks every upstream for the usage
// (stream_options.include_usage, docs/doors.md) and records it, but the
// client's stream ends without any chunk carrying `usage`: the AI SDK's
// streamText then reports usage {} (inputTokens and outputTokens
// undefined), where generateText over the same route reports 10/2.
func TestP51cOpenRouterProviderStreamUsage(t *testing.T) {
	g, _ := p51cGateway(t)
	for _, route := range []string{"via-claude", "via-gemini", "via-openai"} {
		t.Run(route, func(t *testing.T) {
			body := `{"model":"` + route + `","messages":[{"role":"user","content":"hello"}],"reasoning":{"effort":"low"},"usage":{"include":true},"provider":{"order":["anthropic"],"allow_fallbacks":true},"stream":true}`
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer test")
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			usage := false
			for _, line := range strings.Split(string(r.Body), "\n") {
				data, ok := strings.CutPrefix(line, "data: ")
				if !ok || data == "[DONE]" {
					continue
				}
				var c struct {
					Usage *struct {
						PromptTokens     int `json:"prompt_tokens"`
						CompletionTokens int `json:"completion_tokens"`
					} `json:"usage"`
				}
				if json.Unmarshal([]byte(data), &c) == nil && c.Usage != nil && c.Usage.PromptTokens > 0 {
					usage = true
				}
			}
			if !usage {
				t.Errorf("the client asked for usage (OpenRouter's usage.include) and the stream carries none:\n%s", r.Body)
			}
		})
	}
}
