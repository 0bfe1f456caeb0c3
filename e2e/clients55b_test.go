package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 55b: coding agents (OpenCode, Qwen Code, Crush) in multi-step
// tool loops through Detour onto Anthropic, Gemini and DeepSeek-style
// targets, with a failover in the middle.

const p55bCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{claude}", api_key: ` + secret + `}
  - {name: gemini-a, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
  - {name: deepseek, dialect: openai, base_url: "{ds}/v1", api_key: ` + secret + `}
  - {name: dead, dialect: openai, base_url: "{dead}/v1", api_key: ` + secret + `}
  - {name: bad, dialect: openai, base_url: "{bad}/v1", api_key: ` + secret + `}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a]}
  - {name: dsr, model: deepseek-reasoner, providers: [deepseek]}
  - {name: dead429, model: gpt-4o, providers: [dead]}
  - {name: bad400, model: gpt-4o, providers: [bad]}
routes:
  - {name: claude, targets: [sonnet]}
  - {name: gem3, targets: [g3]}
  - {name: ds, targets: [dsr]}
  - {name: ds-then-claude, targets: [dsr, sonnet]}
  - {name: claude-then-gem, targets: [sonnet, g3]}
  - {name: spent, targets: [dead429]}
  - {name: bad, targets: [bad400]}
`

// p55bSteps is how many tool results the history carries (any dialect).
func p55bSteps(body string) int {
	return strings.Count(body, `"tool_result"`) + strings.Count(body, `"functionResponse"`) + strings.Count(body, `"role":"tool"`)
}

// p55bTool picks the agent's glob-like tool from the request.
func p55bTool(body string) string {
	for _, n := range []string{"glob", "Glob", "list_directory", "ls", "list"} {
		if strings.Contains(body, `"name":"`+n+`"`) {
			return n
		}
	}
	return ""
}

// p55bClaude is Anthropic Messages: thinking + a tool_use for two steps,
// then text. Streamed per the Messages streaming docs.
func p55bClaude(down func(int) bool) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if down != nil && down(n) {
			return upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
		}
		body := string(r.Body)
		if msg := p55bClaudeRefuse(r.Body); msg != "" {
			return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"` + msg + `"}}`}
		}
		tool := p55bTool(body)
		steps := p55bSteps(body)
		ev := []string{
			`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"msg_01p55b","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":1}}}`,
			`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me look."}}`,
			`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDaGVja2luZy4uLg=="}}`,
			`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		}
		stop := "end_turn"
		if tool != "" && steps < 2 {
			stop = "tool_use"
			ev = append(ev,
				`event: content_block_start`+"\n"+fmt.Sprintf(`data: {"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_01p55b%d","name":"%s","input":{}}}`, n, tool),
				`event: content_block_delta`+"\n"+`data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"pattern\": \"*.txt\""}}`,
				`event: content_block_delta`+"\n"+`data: {"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":", \"path\": \".\"}"}}`,
				`event: content_block_stop`+"\n"+`data: {"type":"content_block_stop","index":1}`)
		} else {
			ev = append(ev,
				`event: content_block_start`+"\n"+`data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
				`event: content_block_delta`+"\n"+fmt.Sprintf(`data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Claude finished: all %d steps done."}}`, steps),
				`event: content_block_stop`+"\n"+`data: {"type":"content_block_stop","index":1}`)
		}
		ev = append(ev,
			`event: message_delta`+"\n"+`data: {"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":30}}`,
			`event: message_stop`+"\n"+`data: {"type":"message_stop"}`)
		if !r.Streamed() {
			return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"p55b fake only streams"}}`}
		}
		return upstreamtest.Step{Events: ev}
	}
}

// p55bClaudeSig is the only signature the fake Claude writes.
const p55bClaudeSig = "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDaGVja2luZy4uLg=="

// p55bClaudeRefuse answers what Anthropic refuses with thinking on
// (extended-thinking docs, "Preserving thinking blocks"): a thinking block
// whose signature Claude did not write, and with thinking enabled a final
// assistant turn with tool_use that does not start with a thinking block.
func p55bClaudeRefuse(raw []byte) string {
	var req struct {
		Thinking *struct{ Type string } `json:"thinking"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(raw, &req)
	lastAsst := -1
	for i, m := range req.Messages {
		var blocks []struct{ Type, Signature, Data string }
		_ = json.Unmarshal(m.Content, &blocks)
		for j, b := range blocks {
			if b.Type == "thinking" && b.Signature != p55bClaudeSig {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `signature` in `thinking` block", i, j)
			}
			if b.Type == "redacted_thinking" {
				return fmt.Sprintf("messages.%d.content.%d: Invalid `data` in `redacted_thinking` block", i, j)
			}
		}
		if m.Role == "assistant" {
			lastAsst = i
		}
	}
	if req.Thinking != nil && req.Thinking.Type == "enabled" && lastAsst >= 0 {
		var blocks []struct{ Type string }
		_ = json.Unmarshal(req.Messages[lastAsst].Content, &blocks)
		hasTool := false
		for _, b := range blocks {
			hasTool = hasTool || b.Type == "tool_use"
		}
		if hasTool && (len(blocks) == 0 || (blocks[0].Type != "thinking" && blocks[0].Type != "redacted_thinking")) {
			return fmt.Sprintf("messages.%d.content.0.type: Expected `thinking` or `redacted_thinking`, but found `%s`. When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. Please consult our documentation at https://docs.claude.com/en/docs/build-with-claude/extended-thinking", lastAsst, blocks[0].Type)
		}
	}
	return ""
}

// p55bDeepSeek is DeepSeek's chat completions (deepseek-reasoner):
// reasoning_content deltas, then a tool call for two steps, then text;
// a usage chunk with prompt_cache_hit_tokens (DeepSeek API docs).
func p55bDeepSeek(down func(int) bool) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if down != nil && down(n) {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"Server overloaded, please try again later.","type":"service_unavailable_error","param":null,"code":"service_unavailable"}}`}
		}
		body := string(r.Body)
		tool := p55bTool(body)
		steps := p55bSteps(body)
		id := fmt.Sprintf("p55b-ds-%d", n)
		head := `{"id":"` + id + `","object":"chat.completion.chunk","created":1765000000,"model":"deepseek-reasoner","system_fingerprint":"fp_p55b","choices":[`
		ev := []string{
			head + `{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
			head + `{"index":0,"delta":{"reasoning_content":"Let me list the files."},"logprobs":null,"finish_reason":null}]}`,
		}
		fin := "stop"
		if tool != "" && steps < 2 {
			fin = "tool_calls"
			ev = append(ev,
				head+`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_00_p55b`+fmt.Sprint(n)+`","type":"function","function":{"name":"`+tool+`","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`,
				head+`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pattern\": \"*.txt\""}}]},"logprobs":null,"finish_reason":null}]}`,
				head+`{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":", \"path\": \".\"}"}}]},"logprobs":null,"finish_reason":null}]}`)
		} else {
			ev = append(ev, head+`{"index":0,"delta":{"content":"DeepSeek finished: all `+fmt.Sprint(steps)+` steps done."},"logprobs":null,"finish_reason":null}]}`)
		}
		ev = append(ev, head+`{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"`+fin+`"}],"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":8},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":60}}`, "[DONE]")
		if !r.Streamed() {
			text := "Title"
			return upstreamtest.Step{Body: `{"id":"` + id + `","object":"chat.completion","created":1765000000,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","content":"` + text + `","reasoning_content":"ok"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2,"total_tokens":12}}`}
		}
		return upstreamtest.Step{Events: ev}
	}
}

// TestC55bAISDKThinkingLoopFailsOverToClaude: OpenCode (1.18.33)
// with its @ai-sdk/anthropic provider at Detour's Messages door, the
// model's options turning thinking on ({"thinking":{"type":"enabled",
// "budgetTokens":4000}}, opencode.json), on route [deepseek-reasoner,
// claude]. DeepSeek answers step 1 (reasoning + a glob call); the door
// writes the reasoning as a thinking block with an empty signature and no
// signature_delta. The AI SDK keeps reasoning only with a signature or
// redacted data ("unsupported reasoning metadata" otherwise, found in the
// opencode binary's bundled @ai-sdk/anthropic convert-to-anthropic-messages),
// so step 2 arrives with thinking enabled and a last assistant turn of
// tool_use alone. DeepSeek is down (503), Claude gets it as it came and
// refuses it: "Expected `thinking` or `redacted_thinking`, but found
// `tool_use`. When `thinking` is enabled, a final `assistant` message must
// start with a thinking block" (Anthropic extended-thinking docs,
// https://docs.claude.com/en/docs/build-with-claude/extended-thinking#preserving-thinking-blocks).
// docs/doors.md says the door drops `thinking` when the loop's opening turn
// "no longer opens with a thinking block"; it does so only when the door
// itself removed the block. Observed with the real CLI: `opencode run -m
// detourant/ds-then-claude` printed that Claude error and stopped. The
// door now signs its thinking (messages.ReasoningSignature): the block
// comes back, and is dropped with the request's thinking before Claude.
func TestC55bAISDKThinkingLoopFailsOverToClaude(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"claude": p55bClaude(nil),
		"ds":     p55bDeepSeek(func(n int) bool { return n >= 2 }),
		"gem":    upstreamtest.Steps(upstreamtest.Step{Status: 500}),
		"dead":   upstreamtest.Steps(upstreamtest.Step{Status: 500}),
		"bad":    upstreamtest.Steps(upstreamtest.Step{Status: 500}),
	})
	g := start(t, p55bCfg, fs)
	p55bAISDKLoop(t, g, fs, "ds-then-claude", true)
}

// p55bDeepSeekStrict is p55bDeepSeek refusing, as DeepSeek's thinking
// mode does, an assistant turn with tool_calls but no reasoning_content
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls: "the
// API will return a 400 error"; message as in p52cDeepSeek).
func p55bDeepSeekStrict(n int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Messages []map[string]any `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	for _, m := range req.Messages {
		if m["role"] == "assistant" && m["tool_calls"] != nil && m["reasoning_content"] == nil {
			return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`}
		}
	}
	return p55bDeepSeek(nil)(n, r)
}

// p55bAISDKLoop runs a streamed Messages tool loop on model as
// @ai-sdk/anthropic (OpenCode's provider) does it: the answer is
// accumulated from the stream, and the assistant turn handed back keeps a
// thinking block only if a signature_delta gave it a signature (the
// bundled AI SDK in opencode-ai 1.18.33: reasoning-start carries no
// metadata, signature_delta sets providerMetadata.anthropic.signature,
// and convert-to-anthropic-messages leaves reasoning without one out with
// the warning "unsupported reasoning metadata").
func p55bAISDKLoop(t *testing.T, g *gateway, fs map[string]*upstreamtest.Server, model string, thinking bool) {
	t.Helper()
	c := anthropicSDK(g, nil)
	p := anthropic.MessageNewParams{Model: model, MaxTokens: 36000,
		Tools: []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "glob", Description: anthropic.String("Fast file pattern matching tool"),
			InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"pattern": map[string]any{"type": "string"}, "path": map[string]any{"type": "string"}}, Required: []string{"pattern"}}}}},
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("list the text files twice using glob"))}}
	if thinking {
		p.Thinking = anthropic.ThinkingConfigParamOfEnabled(4000)
	}
	for step := 1; step <= 3; step++ {
		st := c.Messages.NewStreaming(context.Background(), p)
		var m anthropic.Message
		signed := map[int64]bool{}
		for st.Next() {
			ev := st.Current()
			if ev.Type == "content_block_delta" && ev.Delta.Type == "signature_delta" {
				signed[ev.Index] = true
			}
			if err := m.Accumulate(ev); err != nil {
				t.Fatal(err)
			}
		}
		if err := st.Err(); err != nil {
			for name, srv := range fs {
				if rs := srv.Requests(); len(rs) > 0 && (name == "claude" || name == "ds") {
					t.Logf("last request to %s: %.1200s", name, rs[len(rs)-1].Body)
				}
			}
			t.Fatalf("step %d: %v", step, err)
		}
		if m.StopReason != anthropic.StopReasonToolUse {
			t.Logf("step %d answered: %s", step, m.Content[len(m.Content)-1].Text)
			return
		}
		var turn, results []anthropic.ContentBlockParamUnion
		for i, b := range m.Content {
			switch b.Type {
			case "thinking":
				if signed[int64(i)] {
					turn = append(turn, anthropic.NewThinkingBlock(b.Signature, b.Thinking))
				}
			case "tool_use":
				turn = append(turn, anthropic.NewToolUseBlock(b.ID, b.Input, b.Name))
				results = append(results, anthropic.NewToolResultBlock(b.ID, "ripgrep execution failed", true))
			}
		}
		p.Messages = append(p.Messages, anthropic.NewAssistantMessage(turn...), anthropic.NewUserMessage(results...))
	}
	t.Errorf("loop did not end")
}

// TestC55bAISDKAnthropicOnDeepSeekThinking: OpenCode's (and every
// @ai-sdk/anthropic app's) streamed tool loop at the Messages door on a
// DeepSeek thinking-mode route. The door streams reasoning_content as a
// thinking block with an empty signature and no signature_delta, so the
// AI SDK leaves it out of the next request (p55bAISDKLoop), and step 2
// reaches DeepSeek without the reasoning that opened the loop: DeepSeek
// refuses it, "The reasoning_content in the thinking mode must be passed
// back to the API." (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls),
// a bad_request that stops the chain. TestP52cDeepSeekThinkingToolLoopThroughMessages
// (anthropic-sdk-go's ToParam, which keeps the empty-signature block)
// passes; the AI SDK's stream path never sees a signature. A
// signature_delta carrying a door-written signature now lets the AI SDK
// hand it back (messages.ReasoningSignature).
func TestC55bAISDKAnthropicOnDeepSeekThinking(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"claude": p55bClaude(nil), "ds": p55bDeepSeekStrict,
		"gem": upstreamtest.Steps(upstreamtest.Step{Status: 500}), "dead": upstreamtest.Steps(upstreamtest.Step{Status: 500}), "bad": upstreamtest.Steps(upstreamtest.Step{Status: 500}),
	})
	g := start(t, p55bCfg, fs)
	p55bAISDKLoop(t, g, fs, "ds", false)
}

// The real Vercel AI SDK (@ai-sdk/anthropic, OpenCode's provider) in a
// streamed tool loop at the Messages door: on DeepSeek's thinking mode,
// which refuses a step without the reasoning that opened the loop, and
// with thinking on over DeepSeek then Claude (DeepSeek down at step two).
// Both ended at step two before the door signed its thinking (probe 55b).
func TestC55bAISDKAnthropicToolLoops(t *testing.T) {
	for _, c := range []struct {
		route    string
		thinking bool
		ds       upstreamtest.Script
	}{
		{"ds", false, p55bDeepSeekStrict},
		{"ds-then-claude", true, p55bDeepSeek(func(n int) bool { return n >= 2 })},
	} {
		t.Run(c.route, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"claude": p55bClaude(nil), "ds": c.ds,
				"gem": upstreamtest.Steps(upstreamtest.Step{Status: 500}), "dead": upstreamtest.Steps(upstreamtest.Step{Status: 500}), "bad": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
			g := start(t, p55bCfg, fs)
			env := []string{"DETOUR_MODEL=" + c.route}
			if c.thinking {
				env = append(env, "THINKING=1")
			}
			res := p54bScript(t, g.URL, p55bJS, env...)
			if e, ok := res["error"]; ok {
				t.Fatalf("the loop failed: %v", e)
			}
			if text, _ := res["text"].(string); !strings.Contains(text, "finished") {
				t.Errorf("final answer %q", text)
			}
		})
	}
}

const p55bJS = `
const base = process.env.DETOUR_URL, model = process.env.DETOUR_MODEL;
const out = {};
try {
  const { streamText, tool, jsonSchema, stepCountIs } = await import('ai');
  const { createAnthropic } = await import('@ai-sdk/anthropic');
  const m = createAnthropic({ baseURL: base + '/v1', apiKey: 'test' })(model);
  const glob = tool({ description: 'Fast file pattern matching tool',
    inputSchema: jsonSchema({ type: 'object', properties: { pattern: { type: 'string' }, path: { type: 'string' } }, required: ['pattern'] }),
    execute: async () => 'a.txt' });
  const opts = { model: m, prompt: 'list the text files twice using glob', tools: { glob }, stopWhen: stepCountIs(6), maxRetries: 0, maxOutputTokens: 8000 };
  if (process.env.THINKING) opts.providerOptions = { anthropic: { thinking: { type: 'enabled', budgetTokens: 4000 } } };
  let err;
  const r = streamText({ ...opts, onError: ({ error }) => { err = error; } });
  let text = '';
  for await (const t of r.textStream) text += t;
  if (err) throw err;
  out.text = text; out.steps = (await r.steps).length;
} catch (e) { out.error = String(e && (e.responseBody || e.message) || e); }
console.log(JSON.stringify(out));
`
