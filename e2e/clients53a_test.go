package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 53, probe53a: the Anthropic Messages door's output limit on an
// OpenAI-compatible target that reads only max_tokens.

// p53aDeepSeek answers like DeepSeek's /chat/completions: it reads the
// output limit from `max_tokens`, the only name DeepSeek's API reference
// documents, and ignores `max_completion_tokens` (earendil-works/pi#8018,
// verified against api.deepseek.com with deepseek-v4-flash:
// "max_completion_tokens: 5 -> 76 output tokens, finish=stop (limit
// ignored); max_tokens: 5 -> 5 output tokens, finish=length"; the same in
// ZhiYi-R/moon-bridge#88 and infiniflow/ragflow#17546). Its answer is 76
// tokens long unless max_tokens cuts it.
func p53aDeepSeek() upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			MaxTokens *int `json:"max_tokens"`
		}
		_ = json.Unmarshal(r.Body, &req)
		n, finish, text := 76, "stop", strings.Repeat("word ", 76)
		if req.MaxTokens != nil && *req.MaxTokens < n {
			n, finish, text = *req.MaxTokens, "length", strings.Repeat("word ", *req.MaxTokens)
		}
		b, _ := json.Marshal(map[string]any{"id": "930c60df-bf64-41c9-a88e-3ec75f81e00e", "object": "chat.completion", "created": 1777000000, "model": "deepseek-v4-flash",
			"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": text}, "logprobs": nil, "finish_reason": finish}},
			"usage":   map[string]any{"prompt_tokens": 12, "completion_tokens": n, "total_tokens": 12 + n, "prompt_tokens_details": map[string]any{"cached_tokens": 0}, "prompt_cache_hit_tokens": 0, "prompt_cache_miss_tokens": 12}})
		return upstreamtest.Step{Body: string(b)}
	}
}

// An Anthropic SDK client's max_tokens on a DeepSeek route: before round 53
// the Messages door wrote it as `max_completion_tokens` for every
// OpenAI-dialect target, which DeepSeek ignores, so the client asked for at
// most 5 tokens and got 76 with stop_reason end_turn (and paid for them).
// It is now `max_tokens` (docs/doors.md, "The output limit's name").
func TestP53aMaxTokensReachDeepSeek(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p53aDeepSeek()})
	g := start(t, "providers:\n  - {name: deepseek, dialect: openai, base_url: \"{deepseek}\", api_key: "+secret+"}\ntargets:\n  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}\nroutes:\n  - {name: dsr, targets: [ds]}\n", fs)
	c := anthropic.NewClient(option.WithBaseURL(g.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
	msg, err := c.Messages.New(context.Background(), anthropic.MessageNewParams{Model: "dsr", MaxTokens: 5,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("Describe the sea."))}})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("DeepSeek got %s", lastRaw(t, fs["deepseek"]))
	if msg.Usage.OutputTokens > 5 || msg.StopReason != anthropic.StopReasonMaxTokens {
		t.Errorf("max_tokens 5 on a DeepSeek route: %d output tokens, stop_reason %q (DeepSeek got no max_tokens)", msg.Usage.OutputTokens, msg.StopReason)
	}
}
