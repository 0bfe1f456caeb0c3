package e2e

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32k. f5b42d4 turns thinking off when the LAST assistant
// message lost its opening thinking block. Anthropic's rule is about the
// assistant message that opens the current tool loop ("a final
// `assistant` message must start with a thinking block (preceeding the
// lastmost set of `tool_use` and `tool_result` blocks)": the messages.N
// it names is the first assistant message after the last plain user
// turn). A two-step tool loop whose first step failed over to DeepSeek:
// step two reaches Claude with thinking off (DropUnsigned), Claude calls a
// second tool; step three holds [thinking(unsigned), tool_use A] ...
// [tool_use B], the last assistant message is intact, so thinking stays
// on and Claude refuses with 400 — for every remaining step of the loop.
func TestReview32kTwoStepToolLoopAfterFailover(t *testing.T) {
	const goodSig = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"
	type blk struct {
		Type      string  `json:"type"`
		Signature *string `json:"signature"`
	}
	toolUseB := `{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"toolu_01B","name":"get_weather","input":{"city":"Rome"}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`
	claude := func(n int, r upstreamtest.Request) upstreamtest.Step {
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
		loopStart, results := -1, 0
		for i, m := range b.Messages {
			var blocks []blk
			_ = json.Unmarshal(m.Content, &blocks)
			for _, c := range blocks {
				if c.Type == "thinking" && (c.Signature == nil || *c.Signature != goodSig) {
					return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"Invalid ` + "`signature` in `thinking`" + ` block"}}`}
				}
			}
			hasResult := false
			for _, c := range blocks {
				hasResult = hasResult || c.Type == "tool_result"
			}
			switch {
			case m.Role == "user" && hasResult:
				results++
			case m.Role == "user":
				loopStart = -1 // a plain user turn: the next assistant message opens a new turn
			case m.Role == "assistant" && loopStart < 0:
				loopStart = i
			}
		}
		last := b.Messages[len(b.Messages)-1]
		var lastBlocks []blk
		_ = json.Unmarshal(last.Content, &lastBlocks)
		inLoop := len(lastBlocks) > 0 && lastBlocks[0].Type == "tool_result"
		if b.Thinking != nil && b.Thinking.Type == "enabled" && inLoop && loopStart >= 0 {
			var blocks []blk
			_ = json.Unmarshal(b.Messages[loopStart].Content, &blocks)
			if len(blocks) == 0 || blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking" {
				return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.` +
					r32dItoa(loopStart) + ".content.0.type: Expected `thinking` or `redacted_thinking`, but found `" + blocks[0].Type +
					"`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`.\"}}"}
			}
		}
		switch results {
		case 0:
			return corpus(t, "anthropic-overloaded-529")
		case 1:
			return upstreamtest.Step{Body: toolUseB}
		}
		return upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "Paris 15, Rome 18.")}
	}
	deepseek := `{"id":"chatcmpl-ds","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"I need the weather; call the tool.","content":"","tool_calls":[{"index":0,"id":"call_00_abc","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":10,"completion_tokens":12,"total_tokens":22}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": claude,
		"openai":    script(upstreamtest.Step{Body: deepseek}, upstreamtest.Step{Body: deepseek}, upstreamtest.Step{Body: deepseek}),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	params := askClaude("deep", "weather in Paris and Rome?")
	params.MaxTokens = 2048
	params.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)
	params.Tools = []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather",
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}}}}}
	turn := func(i int) *anthropic.Message {
		m, err := c.Messages.New(context.Background(), params)
		if err != nil {
			t.Fatalf("turn %d: %v\nClaude got: %s", i, err, r32dLastBody(fs["anthropic"]))
		}
		return m
	}
	toolID := func(m *anthropic.Message) string {
		for _, b := range m.Content {
			if b.Type == "tool_use" {
				return b.ID
			}
		}
		t.Fatalf("no tool_use in %s", m.RawJSON())
		return ""
	}
	m1 := turn(1) // Claude overloaded: DeepSeek answers thinking (unsigned) + tool_use
	params.Messages = append(params.Messages, m1.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(toolID(m1), "15 degrees", false)))
	m2 := turn(2) // Claude up: thinking turned off by DropUnsigned, calls the second tool
	if m2.Model != "claude-sonnet-4-5" {
		t.Fatalf("turn 2 not served by Claude: %s", m2.RawJSON())
	}
	params.Messages = append(params.Messages, m2.ToParam(), anthropic.NewUserMessage(anthropic.NewToolResultBlock(toolID(m2), "18 degrees", false)))
	m3 := turn(3)
	if claudeText(m3) != "Paris 15, Rome 18." {
		t.Errorf("turn 3 (second tool result) not served by Claude: %s\nClaude got: %s\nClaude's answers: %d requests", m3.RawJSON(), r32dLastBody(fs["anthropic"]), len(fs["anthropic"].Requests()))
	}
}
