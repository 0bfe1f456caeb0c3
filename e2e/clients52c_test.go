package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 52, helper probe52c: the Anthropic Messages door (/v1/messages)
// driven as real client developers drive it, with targets that are not
// Anthropic (Gemini, OpenAI-compatible, DeepSeek-style reasoning).

const p52cDeepSeekCfg = `
client_keys: [client-key-1]
providers:
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
targets:
  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}
routes:
  - {name: dsr, targets: [ds]}
`

// p52cDeepSeekCall is DeepSeek's thinking-mode answer to a tool request:
// reasoning_content beside tool_calls, as
// https://api-docs.deepseek.com/guides/thinking_mode#tool-calls shows it.
const p52cDeepSeekCall = `{"id":"b7f3c2a1-0d5e-4f6a-9b8c-7d6e5f4a3b2c","object":"chat.completion","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"The user wants the weather in Hangzhou. I should call get_weather.","tool_calls":[{"index":0,"id":"call_00_ds4weather0001","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Hangzhou\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":20}}}`

// p52cDeepSeek answers like DeepSeek's thinking mode: the first call with
// p52cDeepSeekCall, later calls with DeepSeek's 400 when an assistant turn
// with tool_calls lacks its reasoning_content (the corpus case
// deepseek-reasoning-content-must-be-passed-back-400), else with text.
func p52cDeepSeek(text string) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return upstreamtest.Step{Body: p52cDeepSeekCall}
		}
		var req struct {
			Messages []map[string]any `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &req)
		for _, m := range req.Messages {
			if m["role"] == "assistant" && m["tool_calls"] != nil && m["reasoning_content"] == nil {
				return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`}
			}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("deepseek-v4-flash", text)}
	}
}

// TestP52cDeepSeekThinkingToolLoopThroughMessages: the Messages door
// answers DeepSeek's reasoning_content as a thinking block (empty
// signature), anthropic-sdk-go's Message.ToParam() hands it back with the
// tool_use in the next request (as every Anthropic tool loop does), and the
// door drops it ("thinking … dropped", turns.go assistant()): DeepSeek
// then answers 400 "The reasoning_content in the thinking mode must be
// passed back to the API." DeepSeek: "For turns that do perform tool
// calls, the reasoning_content must be fully passed back to the API in all
// subsequent requests … the API will return a 400 error"
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls). Claude
// Code on a DeepSeek route fails at its first tool result. FAILS now.
func TestP52cDeepSeekThinkingToolLoopThroughMessages(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p52cDeepSeek("It is 24°C and sunny in Hangzhou.")})
	g := start(t, p52cDeepSeekCfg, fs)
	c := anthropicSDK(g, nil)
	tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather", Description: anthropic.String("Get the weather for a location"),
		InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"location": map[string]any{"type": "string"}}, Required: []string{"location"}}}}}
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What's the weather in Hangzhou?"))}
	p := anthropic.MessageNewParams{Model: "dsr", MaxTokens: 1024, Tools: tools, Messages: msgs}
	first, err := c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if first.StopReason != anthropic.StopReasonToolUse {
		t.Fatalf("stop_reason %q: %s", first.StopReason, first.RawJSON())
	}
	p.Messages = append(p.Messages, first.ToParam())
	for _, b := range first.Content {
		if b.Type == "tool_use" {
			p.Messages = append(p.Messages, anthropic.NewUserMessage(anthropic.NewToolResultBlock(b.ID, `{"temperature":24,"condition":"sunny"}`, false)))
		}
	}
	second, err := c.Messages.New(context.Background(), p)
	if err != nil {
		t.Fatalf("second step of the tool loop: %v\nfirst answer: %s\nDeepSeek got (%d requests in all): %s", err, first.RawJSON(), len(fs["deepseek"].Requests()), lastRaw(t, fs["deepseek"]))
	}
	if len(second.Content) == 0 || second.Content[len(second.Content)-1].Text != "It is 24°C and sunny in Hangzhou." {
		t.Errorf("answer %s", second.RawJSON())
	}
}

// p52cJSDeepSeekStream is the JS @anthropic-ai/sdk's streaming tool loop
// (messages.stream, finalMessage(), the final message's content handed
// back as the assistant turn, a tool_result) over route dsr.
const p52cJSDeepSeekStream = `
import Anthropic from '@anthropic-ai/sdk';
const c = new Anthropic({ baseURL: process.env.P52C_BASE, apiKey: 'client-key-1', maxRetries: 0 });
const tools = [{ name: 'get_weather', description: 'Get the weather for a location', input_schema: { type: 'object', properties: { location: { type: 'string' } }, required: ['location'] } }];
const messages = [{ role: 'user', content: "What's the weather in Hangzhou?" }];
try {
  const first = await c.messages.stream({ model: 'dsr', max_tokens: 1024, tools, messages }).finalMessage();
  messages.push({ role: 'assistant', content: first.content });
  const call = first.content.find(b => b.type === 'tool_use');
  messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: '{"temperature":24,"condition":"sunny"}' }] });
  const second = await c.messages.stream({ model: 'dsr', max_tokens: 1024, tools, messages }).finalMessage();
  console.log(JSON.stringify({ first: first.content.map(b => b.type), text: second.content.map(b => b.text).join('') }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, status: e?.status, message: String(e?.message).slice(0, 300) }));
}
`

// TestP52cDeepSeekThinkingToolLoopJSStream: the same tool loop as
// TestP52cDeepSeekThinkingToolLoopThroughMessages, streamed, with the JS
// SDK (as Claude Code and most Anthropic-SDK agents stream). DeepSeek's
// stream carries delta.reasoning_content before the tool call
// (https://api-docs.deepseek.com/guides/thinking_mode); the door streams it
// as a thinking block, the SDK's finalMessage() holds it, the client hands
// it back, and DeepSeek refuses the second step because the door dropped
// it. FAILS now.
func TestP52cDeepSeekThinkingToolLoopJSStream(t *testing.T) {
	modules := os.Getenv("DETOUR_CLIENTS_DIR")
	if modules == "" {
		t.Skip("DETOUR_CLIENTS_DIR not set")
	}
	chunk := func(delta, finish string) string {
		return `{"id":"b7f3c2a1-0d5e-4f6a-9b8c-7d6e5f4a3b2c","object":"chat.completion.chunk","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	stream := []string{
		chunk(`{"role":"assistant","content":null,"reasoning_content":""}`, "null"),
		chunk(`{"reasoning_content":"The user wants the weather in Hangzhou."}`, "null"),
		chunk(`{"reasoning_content":" I should call get_weather."}`, "null"),
		chunk(`{"tool_calls":[{"index":0,"id":"call_00_ds4weather0001","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null"),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":\"Hangzhou\"}"}}]}`, "null"),
		`{"id":"b7f3c2a1-0d5e-4f6a-9b8c-7d6e5f4a3b2c","object":"chat.completion.chunk","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":20}}}`,
		"[DONE]",
	}
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n == 1 {
			return upstreamtest.Step{Events: stream}
		}
		st := p52cDeepSeek("It is 24°C and sunny in Hangzhou.")(n, r)
		if st.Status == 0 {
			st = upstreamtest.Step{Events: upstreamtest.ChatStream("deepseek-v4-flash", "It is 24°C and sunny in Hangzhou.")}
		}
		return st
	}})
	g := start(t, p52cDeepSeekCfg, fs)
	cmd := exec.Command("node", "--input-type=module", "-e", p52cJSDeepSeekStream)
	cmd.Dir = modules
	cmd.Env = append(os.Environ(), "P52C_BASE="+g.URL)
	out, err := cmd.CombinedOutput()
	t.Logf("node: %v %s", err, out)
	if !strings.Contains(string(out), `"text":"It is 24°C and sunny in Hangzhou."`) {
		t.Errorf("the streamed tool loop did not complete: %s\nDeepSeek got: %s", out, lastRaw(t, fs["deepseek"]))
	}
}

const p52cGPT5Cfg = `
client_keys: [client-key-1]
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-5-mini, providers: [openai]}
routes:
  - {name: g5, targets: [gpt]}
`

// TestP52cClaudeCodeOnDeepSeek: Claude Code headless (`claude -p`, the
// npm-clients install) on route dsr (DeepSeek thinking mode behind the
// Messages door), asked a question it answers with one Bash call. The fake
// answers a request offering Bash with DeepSeek's reasoning_content and a
// Bash tool call, a request whose assistant tool-call turn lacks
// reasoning_content with DeepSeek's 400, and anything else with text.
// FAILS now: Claude Code's second model call is DeepSeek's 400.
func TestP52cClaudeCodeOnDeepSeek(t *testing.T) {
	modules := os.Getenv("DETOUR_CLIENTS_DIR")
	if modules == "" {
		t.Skip("DETOUR_CLIENTS_DIR not set")
	}
	const call = `{"id":"b7f3c2a1-0d5e-4f6a-9b8c-7d6e5f4a3b2c","object":"chat.completion","created":1777000000,"model":"deepseek-v4-flash","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"I should run echo to print the word.","tool_calls":[{"index":0,"id":"call_00_ds4bash00000001","type":"function","function":{"name":"Bash","arguments":"{\"command\":\"echo p52c-marker\",\"description\":\"Print the marker\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160}}`
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			Messages []map[string]any `json:"messages"`
			Tools    []struct {
				Function struct{ Name string } `json:"function"`
			} `json:"tools"`
			Stream bool `json:"stream"`
		}
		_ = json.Unmarshal(r.Body, &req)
		answer := func(body, text string) upstreamtest.Step {
			if req.Stream {
				if body != "" {
					var m map[string]any
					_ = json.Unmarshal([]byte(body), &m)
					ch := m["choices"].([]any)[0].(map[string]any)
					ch["delta"] = ch["message"]
					delete(ch, "message")
					m["object"] = "chat.completion.chunk"
					b, _ := json.Marshal(m)
					return upstreamtest.Step{Events: []string{string(b), "[DONE]"}}
				}
				return upstreamtest.Step{Events: upstreamtest.ChatStream("deepseek-v4-flash", text)}
			}
			if body != "" {
				return upstreamtest.Step{Body: body}
			}
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("deepseek-v4-flash", text)}
		}
		hasBash, sawCall := false, false
		for _, tl := range req.Tools {
			hasBash = hasBash || tl.Function.Name == "Bash"
		}
		for _, m := range req.Messages {
			if m["role"] == "assistant" && m["tool_calls"] != nil {
				sawCall = true
				if m["reasoning_content"] == nil {
					return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`}
				}
			}
		}
		if hasBash && !sawCall {
			return answer(call, "")
		}
		return answer("", "The command printed p52c-marker.")
	}})
	g := start(t, p52cDeepSeekCfg, fs)
	home := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, modules+"/node_modules/.bin/claude", "-p", "Run `echo p52c-marker` with Bash and tell me what it printed.", "--model", "dsr", "--allowedTools", "Bash(echo:*)")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "ANTHROPIC_BASE_URL="+g.URL, "ANTHROPIC_API_KEY=client-key-1", "ANTHROPIC_SMALL_FAST_MODEL=dsr",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1")
	out, err := cmd.CombinedOutput()
	t.Logf("claude: %v\n%s", err, out)
	for i, rq := range fs["deepseek"].Requests() {
		t.Logf("DeepSeek request %d: tool_calls %v, reasoning_content %v, stream %v", i+1, strings.Contains(string(rq.Body), `"tool_calls"`), strings.Contains(string(rq.Body), `"reasoning_content"`), strings.Contains(string(rq.Body), `"stream":true`))
	}
	if err != nil || !strings.Contains(string(out), "p52c-marker") || strings.Contains(string(out), "reasoning_content") {
		t.Errorf("Claude Code did not finish the tool loop on DeepSeek: %v\n%s", err, out)
	}
}
