package e2e

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The official OpenAI Go SDK as the client: what an application sees through
// a failover, and that a failed stream is reported as an error.

const sdkCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
`

func sdk(g *gateway) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(0))
	return &c
}

func hello(model string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{Model: shared.ChatModel(model), Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}}
}

func TestSDKThroughFailover(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(corpus(t, "anthropic-overloaded-529")),
		"openai":    script(ok("gpt-4o-mini-2024-07-18", "hello from the backup")),
	})
	g := start(t, sdkCfg, fs)
	c, err := sdk(g).Chat.Completions.New(context.Background(), hello("deep"))
	if err != nil {
		t.Fatal(err)
	}
	if c.Choices[0].Message.Content != "hello from the backup" || c.Model != "gpt-4o-mini-2024-07-18" || c.Usage.TotalTokens != 7 {
		t.Errorf("completion: %q from %q, usage %+v", c.Choices[0].Message.Content, c.Model, c.Usage)
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic server_error retry", "claude/anthropic server_error next_target", "gpt/openai ok done")
}

func TestSDKStreamThroughFailover(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(corpus(t, "anthropic-workspace-usage-limits")),
		"openai":    script(okStream("gpt-4o-mini-2024-07-18", "stream", "ed ", "answer")),
	})
	g := start(t, sdkCfg, fs)
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), hello("deep"))
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		acc.AddChunk(s.Current())
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) == 0 || acc.Choices[0].Message.Content != "streamed answer" || acc.Model != "gpt-4o-mini-2024-07-18" {
		t.Errorf("accumulated: %+v", acc.ChatCompletion)
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic quota next_target", "gpt/openai ok done")
}

func TestSDKStreamFailureIsAnError(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(ok("x", "x")),
		"openai":    script(upstreamtest.Step{Events: chunks("gpt-4o-mini", "half an "), Cut: true}),
	})
	g := start(t, sdkCfg, fs)
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), hello("gpt"))
	content := ""
	for s.Next() {
		for _, ch := range s.Current().Choices {
			content += ch.Delta.Content
		}
	}
	if s.Err() == nil {
		t.Fatalf("a stream cut after %q ended as a success for the SDK", content)
	}
	if content != "half an " {
		t.Errorf("content before the cut: %q", content)
	}
	wantSteps(t, g.recs.wait(t, 1), "gpt/openai server_error stop")
}

// A tool call through an Anthropic target: the SDK gets OpenAI tool_calls.
func TestSDKToolCallAgainstAnthropic(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/tool_use.json")}),
		"openai":    script(ok("x", "x")),
	})
	g := start(t, sdkCfg, fs)
	p := hello("claude")
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "get_weather",
		Description: openai.String("Get the current weather in a given location"),
		Parameters: shared.FunctionParameters{"type": "object", "required": []string{"location"},
			"properties": map[string]any{"location": map[string]any{"type": "string"}, "unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}}}},
	})}
	c, err := sdk(g).Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	ch := c.Choices[0]
	if ch.FinishReason != "tool_calls" || len(ch.Message.ToolCalls) != 1 {
		t.Fatalf("choice: %+v", ch)
	}
	call := ch.Message.ToolCalls[0]
	var args map[string]string
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil || call.Function.Name != "get_weather" ||
		call.ID != "toolu_01A09q90qw90lq917835lq9" || args["location"] != "San Francisco, CA" {
		t.Errorf("tool call %+v (%v)", call, err)
	}
	if c.Model != "claude-sonnet-4-5" {
		t.Errorf("model %q", c.Model)
	}
	// The Anthropic fake got an Anthropic request with the tool translated.
	req := fs["anthropic"].Requests()[0]
	var body struct {
		Model string `json:"model"`
		Tools []struct {
			Name        string         `json:"name"`
			InputSchema map[string]any `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(req.Body, &body); err != nil || req.Path != "/v1/messages" || req.Header.Get("x-api-key") != secret ||
		body.Model != "claude-sonnet-4-5" || len(body.Tools) != 1 || body.Tools[0].Name != "get_weather" || body.Tools[0].InputSchema["type"] != "object" {
		t.Errorf("upstream request %s %v: %s", req.Path, err, req.Body)
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic ok done")
}
