package e2e

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A tool call through Anthropic, then the follow-up turn with the tool's
// result: the fake must get a tool_use block in the assistant turn and a
// tool_result block with the same id in a user turn.
func TestSDKDialectsToolRoundTripAnthropic(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(
			// https://docs.anthropic.com/en/docs/agents-and-tools/tool-use/overview (stop_reason tool_use)
			upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/tool_use.json")},
			// https://docs.anthropic.com/en/api/messages (200 response example)
			upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")}),
		"gemini": script(ok("x", "x")),
	})
	g := start(t, sdkDialectCfg, fs)
	p := ask("claude", "What's the weather like in San Francisco?", false)
	p.Tools = []openai.ChatCompletionToolUnionParam{weatherTool()}
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
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		t.Fatalf("arguments %q do not parse: %v", call.Function.Arguments, err)
	}
	if call.ID != "toolu_01A09q90qw90lq917835lq9" || call.Type != "function" || call.Function.Name != "get_weather" ||
		args["location"] != "San Francisco, CA" || args["unit"] != "celsius" {
		t.Errorf("tool call %+v", call)
	}
	if ch.Message.Content != "I'll check the current weather in San Francisco for you." || c.Model != "claude-sonnet-4-5" {
		t.Errorf("content %q model %q", ch.Message.Content, c.Model)
	}

	// The application runs the tool and sends its result back.
	p.Messages = append(p.Messages, ch.Message.ToParam(), openai.ToolMessage("15 degrees", call.ID))
	c2, err := sdk(g).Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Choices[0].Message.Content != "Hi! My name is Claude." || c2.Choices[0].FinishReason != "stop" {
		t.Errorf("follow-up answer: %+v", c2.Choices[0])
	}
	reqs := anthropicRequests(t, fs["anthropic"], false)
	if len(reqs) != 2 {
		t.Fatalf("anthropic got %d requests", len(reqs))
	}
	ms := reqs[1].Messages
	if len(ms) != 3 || ms[0].Role != "user" || ms[1].Role != "assistant" || ms[2].Role != "user" {
		t.Fatalf("follow-up turns: %+v", ms)
	}
	var use, result bool
	for _, b := range ms[1].Content {
		if b.Type == "tool_use" {
			var in map[string]string
			_ = json.Unmarshal(b.Input, &in)
			use = b.ID == call.ID && b.Name == "get_weather" && in["location"] == "San Francisco, CA" && in["unit"] == "celsius"
		}
	}
	for _, b := range ms[2].Content {
		if b.Type == "tool_result" {
			result = b.ToolUseID == call.ID && strings.Contains(string(b.Content), "15 degrees")
		}
	}
	if !use || !result {
		t.Errorf("follow-up: tool_use in the assistant turn %v, tool_result for %s in a user turn %v: %s",
			use, call.ID, result, fs["anthropic"].Requests()[1].Body)
	}
	if fs["gemini"].Calls() != 0 {
		t.Errorf("gemini was called")
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic ok done")
	wantSteps(t, g.recs.wait(t, 2), "claude/anthropic ok done")
}

// A function call through Gemini, then the follow-up turn with the result:
// the fake must get a functionCall part in a model turn and a
// functionResponse part with the same name.
func TestSDKDialectsToolRoundTripGemini(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(ok("x", "x")),
		"gemini": script(upstreamtest.Step{Body: geminiTemperatureCall},
			// Firebase vertexai-sdk-test-data unary-success-basic-reply-short.txt
			upstreamtest.Step{Body: upstreamOf(t, "gemini", "response/basic.json")}),
	})
	g := start(t, sdkDialectCfg, fs)
	p := ask("gem", "What's the temperature in London?", false)
	p.Tools = []openai.ChatCompletionToolUnionParam{temperatureTool()}
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
	if err := json.Unmarshal([]byte(call.Function.Arguments), &args); err != nil {
		t.Fatalf("arguments %q do not parse: %v", call.Function.Arguments, err)
	}
	if call.ID == "" || call.Type != "function" || call.Function.Name != "get_current_temperature" || args["location"] != "London" {
		t.Errorf("tool call %+v", call)
	}
	if c.Model != "gemini-2.0-flash" || c.Usage.PromptTokens != 58 || c.Usage.CompletionTokens != 8 || c.Usage.TotalTokens != 66 {
		t.Errorf("model %q usage %+v", c.Model, c.Usage)
	}

	p.Messages = append(p.Messages, ch.Message.ToParam(), openai.ToolMessage(`{"temperature": 15, "unit": "celsius"}`, call.ID))
	c2, err := sdk(g).Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c2.Choices[0].Message.Content, "Googleplex") || c2.Choices[0].FinishReason != "stop" {
		t.Errorf("follow-up answer: %+v", c2.Choices[0])
	}
	reqs := geminiRequests(t, fs["gemini"], false)
	if len(reqs) != 2 {
		t.Fatalf("gemini got %d requests", len(reqs))
	}
	cs := reqs[1].Contents
	if len(cs) != 3 || cs[0].Role != "user" || cs[1].Role != "model" || cs[2].Role != "user" {
		t.Fatalf("follow-up contents: %s", fs["gemini"].Requests()[1].Body)
	}
	var fc, fr bool
	for _, part := range cs[1].Parts {
		if f := part.FunctionCall; f != nil {
			fc = f.Name == "get_current_temperature" && f.Args["location"] == "London"
		}
	}
	for _, part := range cs[2].Parts {
		if f := part.FunctionResponse; f != nil {
			fr = f.Name == "get_current_temperature" && f.Response["temperature"] == float64(15)
		}
	}
	if !fc || !fr {
		t.Errorf("follow-up: functionCall in the model turn %v, functionResponse named get_current_temperature %v: %s",
			fc, fr, fs["gemini"].Requests()[1].Body)
	}
	if fs["anthropic"].Calls() != 0 {
		t.Errorf("anthropic was called")
	}
	wantSteps(t, g.recs.wait(t, 2), "gem/gemini ok done")
}

func TestSDKDialectsToolCallStream(t *testing.T) {
	for _, tc := range []struct {
		name, target, dialect string
		events                []string
		tool                  openai.ChatCompletionToolUnionParam
		id, fn, args, content string
		model                 string
	}{
		// anthropic-sdk-python tests/lib/streaming/fixtures/tool_use_response.txt:
		// the arguments arrive in four input_json_delta fragments.
		{"anthropic", "claude", "anthropic", sseBlocks(string(testdata(t, "anthropic", "stream/tool_use.sse"))), weatherTool(),
			"toolu_01NRLabsLyVHZPKxbKvkfSMn", "get_weather", `{"location": "Paris"}`, "I'll check the current weather in Paris for you.",
			"claude-sonnet-4-20250514"},
		// Firebase vertexai-sdk-test-data streaming-success-thinking-function-call-thought-summary-signature.txt:
		// two thought-only chunks, then the call.
		{"gemini thinking", "gem", "gemini", sseBlocks(string(testdata(t, "gemini", "stream/function_call_thinking.sse"))), nowTool(),
			"call_*", "now", `{}`, "", "gemini-2.5-flash"},
		// The documented answer above as one streamGenerateContent event
		// (Gemini streams a functionCall whole, in one chunk).
		{"gemini arguments", "gem", "gemini", []string{geminiTemperatureCall}, temperatureTool(),
			"call_*", "get_current_temperature", `{"location":"London"}`, "", "gemini-2.0-flash"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := upstreamtest.Step{Events: tc.events}
			fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(answer), "gemini": script(answer)})
			g := start(t, sdkDialectCfg, fs)
			p := ask(tc.target, "What's the weather like?", true)
			p.Tools = []openai.ChatCompletionToolUnionParam{tc.tool}
			acc, err := accumulate(t, sdk(g).Chat.Completions.NewStreaming(context.Background(), p))
			if err != nil {
				t.Fatal(err)
			}
			if len(acc.Choices) != 1 || len(acc.Choices[0].Message.ToolCalls) != 1 {
				t.Fatalf("accumulated: %+v", acc.ChatCompletion)
			}
			ch := acc.Choices[0]
			call := ch.Message.ToolCalls[0]
			if !sameID(call.ID, tc.id) || call.Function.Name != tc.fn || call.Function.Arguments != tc.args || !json.Valid([]byte(call.Function.Arguments)) {
				t.Errorf("tool call %q %q %q", call.ID, call.Function.Name, call.Function.Arguments)
			}
			if ch.FinishReason != "tool_calls" || ch.Message.Content != tc.content || acc.Model != tc.model {
				t.Errorf("finish %q content %q model %q", ch.FinishReason, ch.Message.Content, acc.Model)
			}
			checkUpstream(t, fs, tc.dialect, true)
			wantSteps(t, g.recs.wait(t, 1), tc.target+"/"+tc.dialect+" ok done")
		})
	}
}
