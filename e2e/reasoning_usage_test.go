package e2e

import (
	"context"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// geminiThinking is a generateContent answer from a thinking model, in the
// documented shape (https://ai.google.dev/api/generate-content#UsageMetadata):
// its thoughts are counted apart in thoughtsTokenCount and billed as output.
const geminiThinking = `{"candidates":[{"content":{"role":"model","parts":[{"text":"4"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"thoughtsTokenCount":120,"totalTokenCount":131},"modelVersion":"gemini-2.0-flash"}`

// TestGeminiThoughtsAreReasoningTokens: the official SDK reads a Gemini
// thinking model's thoughts as reasoning tokens, through chat completions
// (completion_tokens_details) and the Responses API (output_tokens_details),
// counted in the output as Gemini bills them.
func TestGeminiThoughtsAreReasoningTokens(t *testing.T) {
	answer := upstreamtest.Step{Body: geminiThinking}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "gemini": script(answer, answer)})
	g := start(t, sdkDialectCfg, fs)
	c, err := sdk(g).Chat.Completions.New(context.Background(), ask("gem", "2+2?", false))
	if err != nil {
		t.Fatal(err)
	}
	if u := c.Usage; u.CompletionTokens != 121 || u.CompletionTokensDetails.ReasoningTokens != 120 || u.TotalTokens != 131 {
		t.Errorf("chat usage %+v", u)
	}
	r, err := sdk(g).Responses.New(context.Background(), say("gem", "2+2?"))
	if err != nil {
		t.Fatal(err)
	}
	if u := r.Usage; u.OutputTokens != 121 || u.OutputTokensDetails.ReasoningTokens != 120 || u.InputTokens != 10 {
		t.Errorf("responses usage %+v", u)
	}
}
