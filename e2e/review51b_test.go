package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review51b: bc3b638 counts a whole answer whose usage did not read as
// len(out)/4 output tokens for the client's limits. out is the whole chat
// JSON: with logprobs each token comes with up to 20 alternatives (OpenAI's
// chat completion object, https://platform.openai.com/docs/api-reference/chat/object:
// choices[].logprobs.content[] {token, logprob, bytes, top_logprobs[]}), about
// 1 KB of JSON a token, so the estimate is ~250 tokens per token served — and,
// unlike largeOutputFloor (1baf7ee, same round), it is not held to the output
// the request allowed (max_tokens × n). An 8-token answer (max_tokens 8) whose
// usage has the float count the lead's own test uses (easyllm) is charged some
// 2,000 output tokens; a key with a $0.01 day budget is refused after one
// $0.0001 answer.
func TestR51bWholeAnswerEstimateIgnoresMaxTokens(t *testing.T) {
	var content []any
	for i := 0; i < 8; i++ {
		var top []any
		for j := 0; j < 20; j++ {
			tok := fmt.Sprintf(" tok%d", j)
			top = append(top, map[string]any{"token": tok, "logprob": -1.2345678 - float64(j), "bytes": []byte(tok)})
		}
		content = append(content, map[string]any{"token": " word", "logprob": -0.0123456, "bytes": []int{32, 119, 111, 114, 100}, "top_logprobs": top})
	}
	b, _ := json.Marshal(map[string]any{"id": "chatcmpl-r51b", "object": "chat.completion", "created": 1764489600, "model": "gpt-4o",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": strings.Repeat(" word", 8)},
			"logprobs": map[string]any{"content": content, "refusal": nil}, "finish_reason": "length"}}})
	answer := strings.TrimSuffix(string(b), "}") + `,"usage":{"prompt_tokens":9,"completion_tokens":8.0,"total_tokens":17.0}}`
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: answer}, upstreamtest.Step{Body: answer})})
	g := start(t, teamBBudgetCfg, fs)
	extra := `,"logprobs":true,"top_logprobs":20,"max_tokens":8`
	r := g.post(t, "deep", extra, "Authorization", "Bearer key-team-b")
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	a := d.Attempts[0]
	t.Logf("answer %d bytes; attempt estimate %+v", len(answer), a.Estimate)
	if a.Estimate != nil && a.Estimate.OutputTokens > 8 {
		t.Errorf("an answer to max_tokens 8 was estimated at %d output tokens (%d bytes / 4)", a.Estimate.OutputTokens, len(answer))
	}
	r = g.post(t, "deep", extra, "Authorization", "Bearer key-team-b")
	if r.Status != 200 {
		t.Errorf("second 8-token request on a $0.01 day budget: status %d (%.200s); the first cost about $0.0001", r.Status, r.Body)
	}
}

// review51b: e7478b9 says "never tell a client a negative usage count" and
// clamps the Messages and Responses doors; the Chat door's translations are
// Detour's own writing too. An Anthropic answer
// (https://docs.anthropic.com/en/api/messages, usage.input_tokens /
// output_tokens) with output_tokens -5000 is translated by
// anthropic usage.openai() with CompletionTokens: u.OutputTokens as it came
// (its total uses the clamped output()); a Gemini answer
// (https://ai.google.dev/api/generate-content#UsageMetadata) with
// totalTokenCount -4980 gives total_tokens as it came.
func TestR51bChatDoorTranslationsPassNegativeUsage(t *testing.T) {
	anth := `{"id":"msg_01r51b","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"hi"}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":20,"output_tokens":-5000}}`
	gem := `{"candidates":[{"content":{"parts":[{"text":"hi"}],"role":"model"},"finishReason":"STOP","index":0}],` +
		`"usageMetadata":{"promptTokenCount":20,"candidatesTokenCount":1,"totalTokenCount":-4980},"modelVersion":"gemini-2.5-flash"}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anth}),
		"gemini":    script(upstreamtest.Step{Body: gem}),
	})
	cfg := `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
routes:
  - {name: agent, targets: [claude]}
  - {name: gemr, targets: [gem]}
`
	g := start(t, cfg, fs)
	for _, route := range []string{"agent", "gemr"} {
		r := g.post(t, route, "")
		var got struct {
			Usage map[string]any `json:"usage"`
		}
		json.Unmarshal(r.Body, &got)
		for k, v := range got.Usage {
			if f, ok := v.(float64); ok && f < 0 {
				t.Errorf("%s: chat client told usage.%s = %v\n%s", route, k, f, r.Body)
			}
		}
	}
}
