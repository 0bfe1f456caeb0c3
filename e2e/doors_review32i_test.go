package e2e

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review rev32i (hostile review of 03ae21c, ae152f8, 7d91f8c).

// An answer of the shape call, text, call (Gemini's parts [functionCall,
// text, functionCall]; Claude's tool_use, text, tool_use): the first call
// stays open while the message opens after it, the second call closes the
// message, and End closes the still-open calls before... nothing: calls 0
// and 2 close after message 1 closed, so output_item.done comes as 1, 0, 2.
// 03ae21c fixed only text, call, text.
func TestReview32iResponsesDoneOrderCallTextCall(t *testing.T) {
	const cfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: agent, targets: [gpt]}
`
	chunk := func(delta, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
	}
	events := []string{
		chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`, ""),
		chunk(`{"content":"And Rome too."}`, ""),
		chunk(`{"tool_calls":[{"index":1,"id":"call_2","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]}`, ""),
		chunk(`{}`, "tool_calls"),
		"[DONE]",
	}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Events: events})})
	g := start(t, cfg, fs)
	p := say("agent", "weather in Paris and Rome?")
	p.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather", Strict: openai.Bool(false),
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}
	wantDoneInOutputOrder(t, g, p)
}

// The scenario 03ae21c was for, in a tool loop: extended thinking on, Claude
// overloaded, the turn fails over to a reasoning model (DeepSeek) that
// answers reasoning and a tool call. The door answers thinking (unsigned)
// + tool_use; the client sends the turn back with its tool_result; Claude
// is up again. DropUnsigned drops the unsigned thinking block, so the last
// assistant turn of the tool loop now starts with tool_use, which Anthropic
// refuses while thinking is enabled ("a final `assistant` message must
// start with a thinking block ... To avoid this requirement, disable
// `thinking`"). The turn fails at Claude exactly as before the fix.
func TestReview32iUnsignedThinkingToolLoop(t *testing.T) {
	const goodSig = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
	anthropicLike := func(first, answer upstreamtest.Step) upstreamtest.Script {
		return func(n int, r upstreamtest.Request) upstreamtest.Step {
			var b struct {
				Thinking *struct {
					Type string `json:"type"`
				} `json:"thinking"`
				Messages []struct {
					Role    string          `json:"role"`
					Content json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			_ = json.Unmarshal(r.Body, &b)
			type blk struct {
				Type      string  `json:"type"`
				Signature *string `json:"signature"`
			}
			lastAssistant, lastUserHasResult := -1, false
			for i, m := range b.Messages {
				var blocks []blk
				_ = json.Unmarshal(m.Content, &blocks)
				for j, c := range blocks {
					if c.Type == "thinking" && (c.Signature == nil || *c.Signature != goodSig) {
						return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.` +
							r32dItoa(i) + `.content.` + r32dItoa(j) + `: Invalid ` + "`signature` in `thinking`" + ` block"}}`}
					}
				}
				if m.Role == "assistant" {
					lastAssistant = i
				}
				if m.Role == "user" {
					lastUserHasResult = false
					for _, c := range blocks {
						if c.Type == "tool_result" {
							lastUserHasResult = true
						}
					}
				}
			}
			if b.Thinking != nil && b.Thinking.Type == "enabled" && lastAssistant >= 0 && lastUserHasResult {
				var blocks []blk
				_ = json.Unmarshal(b.Messages[lastAssistant].Content, &blocks)
				if len(blocks) == 0 || blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking" {
					found := "nothing"
					if len(blocks) > 0 {
						found = blocks[0].Type
					}
					return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.` +
						r32dItoa(lastAssistant) + ".content.0.type: Expected `thinking` or `redacted_thinking`, but found `" + found +
						"`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking\"}}"}
				}
			}
			if len(b.Messages) == 1 {
				return first
			}
			return answer
		}
	}
	deepseek := `{"id":"chatcmpl-ds","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"I need the weather; call the tool.","content":"","tool_calls":[{"index":0,"id":"call_00_abc","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":12,"total_tokens":22}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": anthropicLike(corpus(t, "anthropic-overloaded-529"),
			upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "It is 15 degrees in Paris.")}),
		"openai": script(upstreamtest.Step{Body: deepseek}, upstreamtest.Step{Body: deepseek}),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	params := askClaude("deep", "weather in Paris?")
	params.MaxTokens = 2048
	params.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)
	params.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}}
	m, err := c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	var callID string
	for _, b := range m.Content {
		if b.Type == "tool_use" {
			callID = b.ID
		}
	}
	if len(m.Content) < 2 || m.Content[0].Type != "thinking" || callID == "" {
		t.Fatalf("first turn (failed over to the reasoning model): %s", m.RawJSON())
	}
	params.Messages = append(params.Messages, m.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(callID, "15 degrees", false)))
	m2, err := c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatalf("second turn (tool result), Claude up again: %v\nClaude got: %s", err, r32dLastBody(fs["anthropic"]))
	}
	if claudeText(m2) != "It is 15 degrees in Paris." {
		t.Errorf("second turn not served by Claude: %s\nClaude got: %s", m2.RawJSON(), r32dLastBody(fs["anthropic"]))
	}
}
