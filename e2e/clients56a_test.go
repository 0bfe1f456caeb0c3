package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 56a: coding agents (Kilo Code CLI, Continue CLI) in multi-step tool
// loops through Detour onto Anthropic, Gemini and DeepSeek-style targets,
// with a failover in the middle.

const p56aCfg = p55bCfg + `  - {name: ds-then-gem, targets: [dsr, g3]}
  - {name: gem-then-claude, targets: [g3, sonnet]}
  - {name: claude-then-ds, targets: [sonnet, dsr]}
  - {name: gem-then-ds, targets: [g3, dsr]}
`

// p56aChatLoop runs a streamed Chat Completions tool loop on model as
// Kilo Code 7.7.7 (its bundled @ai-sdk/openai-compatible provider) sent
// it through Detour's chat door: stream with include_usage, max_tokens
// 32000, tool_choice auto, a `glob` function; each step's assistant turn
// handed back with its tool_calls (and its reasoning_content when the
// answer streamed one, as Kilo does), then the tool's result. It returns
// the final text or the error of the step that failed.
func p56aChatLoop(t *testing.T, g *gateway, model string) (string, error) {
	t.Helper()
	c := sdk(g)
	p := openai.ChatCompletionNewParams{Model: model, MaxTokens: openai.Int(32000),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
		ToolChoice:    openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("auto")},
		Tools: []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{Name: "glob",
			Description: openai.String("Fast file pattern matching tool"),
			Parameters:  openai.FunctionParameters{"type": "object", "properties": map[string]any{"pattern": map[string]any{"type": "string"}, "path": map[string]any{"type": "string"}}, "required": []string{"pattern"}}})},
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("list the text files twice using the glob tool")}}
	for step := 1; step <= 4; step++ {
		st := c.Chat.Completions.NewStreaming(context.Background(), p)
		acc := openai.ChatCompletionAccumulator{}
		reasoning := ""
		for st.Next() {
			ch := st.Current()
			acc.AddChunk(ch)
			for _, cc := range ch.Choices {
				var d struct {
					ReasoningContent string `json:"reasoning_content"`
				}
				_ = json.Unmarshal([]byte(cc.Delta.RawJSON()), &d)
				reasoning += d.ReasoningContent
			}
		}
		if err := st.Err(); err != nil {
			return "", fmt.Errorf("step %d: %w", step, err)
		}
		m := acc.Choices[0].Message
		if len(m.ToolCalls) == 0 {
			return m.Content, nil
		}
		turn := m.ToParam()
		if reasoning != "" {
			turn.OfAssistant.SetExtraFields(map[string]any{"reasoning_content": reasoning})
		}
		p.Messages = append(p.Messages, turn)
		for _, tc := range m.ToolCalls {
			p.Messages = append(p.Messages, openai.ToolMessage("ripgrep execution failed", tc.ID))
		}
	}
	return "", fmt.Errorf("loop did not end")
}

// TestClients56aFailoverIntoDeepSeekThinkingMidLoop: Kilo Code 7.7.7
// (`kilo run -m detouroa/<route>`, provider @ai-sdk/openai-compatible at
// Detour's /v1) in a tool loop whose first target answers step 1 with a
// glob call and is down at step 2 (Claude 529 overloaded_error; Gemini 503
// UNAVAILABLE), so step 2 fails over to DeepSeek's thinking mode. The
// history's assistant tool-call turn was written by Claude or Gemini and
// has no reasoning_content, and DeepSeek refuses it: "The
// reasoning_content in the thinking mode must be passed back to the API."
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls). The
// real CLI printed that error and stopped (x-detour-route gem-then-ds,
// x-detour-attempts 3). Gateways that fail over into DeepSeek pad the
// member: Wei-Shaw/sub2api#7313 (" "), mnfst/llm-gateway#2339 and
// vectorize-io/hindsight#1253 (""), NousResearch/hermes-agent#33795.
// Known since probe 53c (F4, Claude then DeepSeek, Responses door);
// failed before round 56.
func TestClients56aFailoverIntoDeepSeekThinkingMidLoop(t *testing.T) {
	for _, c := range []struct{ route, down string }{{"claude-then-ds", "claude"}, {"gem-then-ds", "gem"}} {
		t.Run(c.route, func(t *testing.T) {
			after1 := func(n int) bool { return n >= 2 }
			scripts := map[string]upstreamtest.Script{
				"claude": p55bClaude(nil),
				"gem":    p54bGemini("a", "glob", `{"pattern":"*.txt"}`, 2, nil),
				"ds":     p55bDeepSeekStrict,
				"dead":   upstreamtest.Steps(upstreamtest.Step{Status: 500}),
				"bad":    upstreamtest.Steps(upstreamtest.Step{Status: 500}),
			}
			if c.down == "claude" {
				scripts["claude"] = p55bClaude(after1)
			} else {
				scripts["gem"] = p54bGemini("a", "glob", `{"pattern":"*.txt"}`, 2, after1)
			}
			fs := fakes(t, scripts)
			g := start(t, p56aCfg, fs)
			text, err := p56aChatLoop(t, g, c.route)
			if err != nil {
				t.Fatalf("the loop ended at the failover: %v\nDeepSeek got: %.900s", err, lastRaw(t, fs["ds"]))
			}
			t.Logf("answered: %s", text)
		})
	}
}

// TestClients56aFailoverIntoDeepSeekThinkingMessagesDoor: the same failover
// at the Messages door, Kilo's @ai-sdk/anthropic provider with the model's
// options turning thinking on (kilo.json `"options":{"thinking":{"type":
// "enabled","budgetTokens":4000}}`, run Q): Claude answers step 1 with a
// signed thinking block and a glob call, Kilo hands both back, Claude is
// down (529) at step 2 and DeepSeek gets the tool-call turn without
// reasoning_content (the door drops the Claude-signed block; observed in
// run Q's ds-001), which DeepSeek's thinking mode refuses. The client did
// hand back reasoning here: the block's text could go as reasoning_content.
// Failed before round 56 (the turn now gets the placeholder).
func TestClients56aFailoverIntoDeepSeekThinkingMessagesDoor(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"claude": p55bClaude(func(n int) bool { return n >= 2 }),
		"ds":     p55bDeepSeekStrict,
		"gem":    upstreamtest.Steps(upstreamtest.Step{Status: 500}),
		"dead":   upstreamtest.Steps(upstreamtest.Step{Status: 500}),
		"bad":    upstreamtest.Steps(upstreamtest.Step{Status: 500}),
	})
	g := start(t, p56aCfg, fs)
	p55bAISDKLoop(t, g, fs, "claude-then-ds", true)
}

// p56aAISDKResponses is Kilo Code 7.7.7's request through its
// @ai-sdk/openai provider (`"npm": "@ai-sdk/openai"` in kilo.json, the
// Responses API): store false and include reasoning.encrypted_content,
// streamed, a tool loop of the AI SDK's own (streamText, stopWhen).
const p56aAISDKResponses = `
import { createOpenAI } from '@ai-sdk/openai';
import { streamText, tool, stepCountIs } from 'ai';
import { z } from 'zod';
const openai = createOpenAI({ baseURL: process.env.P53C_BASE + '/v1', apiKey: 'k' });
const tools = { get_weather: tool({ description: 'Get the weather for a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => 'sunny in ' + city }) };
let err;
const r = streamText({ model: openai.responses(process.env.P53C_MODEL), prompt: 'weather in Paris?', tools, stopWhen: stepCountIs(3), maxRetries: 0,
  maxOutputTokens: 32000, providerOptions: { openai: { store: false, include: ['reasoning.encrypted_content'] } }, onError: ({ error }) => { err = error; } });
await r.consumeStream();
if (err) console.log(JSON.stringify({ error: err?.constructor?.name, status: err?.statusCode, message: String(err?.message || err).slice(0, 300) }));
else console.log(JSON.stringify({ text: await r.text, steps: (await r.steps).length, warnings: (await r.steps).flatMap(s => s.warnings ?? []) }));
`

// TestClients56aAISDKResponsesOnDeepSeekThinking: Kilo Code (and OpenCode)
// with a provider of `"npm": "@ai-sdk/openai"` pointed at Detour's /v1
// speaks the Responses API with store: false and include
// ["reasoning.encrypted_content"] (run R: client-002 carries the
// function_call and its output but no reasoning item). The door streams
// DeepSeek's reasoning as a reasoning item without encrypted_content, the
// AI SDK keeps only reasoning it can hand back under store: false (those
// with encrypted_content), so step 2 reaches DeepSeek without the
// reasoning_content its thinking mode requires, and DeepSeek answers 400
// "The reasoning_content in the thinking mode must be passed back to the
// API." (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls).
// Kilo printed that error and stopped. docs/doors.md states the limit;
// the Messages door had the same shape of failure with the AI SDK and fixed
// it in round 55 by signing its thinking (messages.ReasoningSignature); a
// sealed encrypted_content would do the same here. Failed before round
// 56; the placeholder on the tool-call turn lets the loop finish (its
// reasoning text is still not handed back under store: false).
func TestClients56aAISDKResponsesOnDeepSeekThinking(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p53cDeepSeek, "cerebras": p53cCerebras})
	g := start(t, p53cCfg, fs)
	out := p53cNode(t, g.URL, p56aAISDKResponses, "P53C_MODEL=dsr")
	if !strings.Contains(out, `"text":"It is sunny in Paris."`) {
		t.Errorf("the AI SDK's Responses tool loop on DeepSeek did not finish: %s\nDeepSeek's last request: %.1200s", out, lastRaw(t, fs["deepseek"]))
	}
}
