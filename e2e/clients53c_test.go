package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 53, helper probe53c: the Responses door's reasoning items (commit
// 80c0f2c) driven by real clients. The Cerebras and failover tests failed
// after 80c0f2c, until reasoning_content went only to servers that read it
// (internal/provider/openai/reasoning.go).

const p53cCfg = `
providers:
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
  - {name: cerebras, dialect: openai, base_url: "{cerebras}", api_key: ` + secret + `}
targets:
  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}
  - {name: cb, model: gpt-oss-120b, providers: [cerebras]}
routes:
  - {name: dsr, targets: [ds]}
  - {name: cbr, targets: [cb]}
  - {name: dscb, targets: [ds, cb]}
`

const p53cThought = "The user wants the weather in Paris. I should call get_weather."

// p53cChunk is one chat.completion.chunk of model with delta and finish.
func p53cChunk(model, delta, finish string) string {
	return `{"id":"p53c-1","object":"chat.completion.chunk","created":1777000000,"model":"` + model + `","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
}

// p53cToolAnswer is a thinking model's first answer to a tool request:
// its reasoning in field (reasoning_content as DeepSeek names it,
// https://api-docs.deepseek.com/guides/thinking_mode#tool-calls; reasoning
// as Cerebras' gpt-oss does in its default text_parsed format,
// https://inference-docs.cerebras.ai/capabilities/reasoning), then a
// get_weather call; streamed when the request asks for a stream.
func p53cToolAnswer(model, field string, stream bool) upstreamtest.Step {
	if !stream {
		return upstreamtest.Step{Body: `{"id":"p53c-1","object":"chat.completion","created":1777000000,"model":"` + model + `","choices":[{"index":0,"message":{"role":"assistant","content":"","` + field + `":"` + p53cThought + `","tool_calls":[{"index":0,"id":"call_00_p53cweather01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":20}}}`}
	}
	return upstreamtest.Step{Events: []string{
		p53cChunk(model, `{"role":"assistant","content":null,"`+field+`":""}`, "null"),
		p53cChunk(model, `{"`+field+`":"The user wants the weather in Paris."}`, "null"),
		p53cChunk(model, `{"`+field+`":" I should call get_weather."}`, "null"),
		p53cChunk(model, `{"tool_calls":[{"index":0,"id":"call_00_p53cweather01","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null"),
		p53cChunk(model, `{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}`, "null"),
		`{"id":"p53c-1","object":"chat.completion.chunk","created":1777000000,"model":"` + model + `","choices":[{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":20}}}`,
		"[DONE]",
	}}
}

type p53cReq struct {
	Stream   bool             `json:"stream"`
	Messages []map[string]any `json:"messages"`
}

func p53cRead(r upstreamtest.Request) (p53cReq, bool) {
	var req p53cReq
	_ = json.Unmarshal(r.Body, &req)
	for _, m := range req.Messages {
		if m["role"] == "tool" {
			return req, true
		}
	}
	return req, false
}

func p53cText(model, text string, stream bool) upstreamtest.Step {
	if stream {
		return upstreamtest.Step{Events: upstreamtest.ChatStream(model, text)}
	}
	return upstreamtest.Step{Body: upstreamtest.ChatJSON(model, text)}
}

// p53cDeepSeek is DeepSeek's thinking mode: a request without a tool
// result gets reasoning_content and a get_weather call; one whose
// assistant tool-call turn lacks its reasoning_content gets DeepSeek's 400
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls: "the API
// will return a 400 error"); else the answer.
func p53cDeepSeek(n int, r upstreamtest.Request) upstreamtest.Step {
	req, after := p53cRead(r)
	if !after {
		return p53cToolAnswer("deepseek-v4-flash", "reasoning_content", req.Stream)
	}
	for _, m := range req.Messages {
		if m["role"] == "assistant" && m["tool_calls"] != nil && m["reasoning_content"] == nil {
			return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`}
		}
	}
	return p53cText("deepseek-v4-flash", "It is sunny in Paris.", req.Stream)
}

// p53cCerebras is Cerebras serving gpt-oss-120b: reasoning in "reasoning"
// (text_parsed), and a 400 for any message carrying reasoning_content, the
// body Cerebras sends (quoted in NousResearch/hermes-agent#34716,
// CherryHQ/cherry-studio#16790, egoist/chatwise-releases#1442,
// QwenLM/qwen-code#11045; Kilo-Org/kilocode#10375).
func p53cCerebras(n int, r upstreamtest.Request) upstreamtest.Step {
	req, after := p53cRead(r)
	for i, m := range req.Messages {
		if _, ok := m["reasoning_content"]; ok {
			p := "messages." + itoa(i) + "." + m["role"].(string) + ".reasoning_content"
			return upstreamtest.Step{Status: 400, Body: `{"message":"` + p + `: property '` + p + `' is unsupported","type":"invalid_request_error","param":"validation_error","code":"wrong_api_format"}`}
		}
	}
	if !after {
		return p53cToolAnswer("gpt-oss-120b", "reasoning", req.Stream)
	}
	return p53cText("gpt-oss-120b", "It is sunny in Paris.", req.Stream)
}

// p53cNode runs script (an ES module) with the npm-clients install.
func p53cNode(t *testing.T, base, script string, env ...string) string {
	t.Helper()
	modules := os.Getenv("DETOUR_CLIENTS_DIR")
	if modules == "" {
		t.Skip("DETOUR_CLIENTS_DIR not set")
	}
	cmd := exec.Command("node", "--input-type=module", "-e", script)
	cmd.Dir = modules
	cmd.Env = append(append(os.Environ(), "P53C_BASE="+base), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node: %v\n%s", err, out)
	return string(out)
}

// p53cAISDK is the Vercel AI SDK's tool loop over its Responses model with
// store: false (what the door's 400 for item_reference tells AI SDK users
// to set), whole (generateText) or streamed (streamText).
const p53cAISDK = `
import { createOpenAI } from '@ai-sdk/openai';
import { generateText, streamText, tool, stepCountIs } from 'ai';
import { z } from 'zod';
const openai = createOpenAI({ baseURL: process.env.P53C_BASE + '/v1', apiKey: 'k' });
const tools = { get_weather: tool({ description: 'Get the weather for a city', inputSchema: z.object({ city: z.string() }), execute: async ({ city }) => 'sunny in ' + city }) };
const opts = { model: openai.responses(process.env.P53C_MODEL), prompt: 'weather in Paris?', tools, stopWhen: stepCountIs(3), maxRetries: 0, providerOptions: { openai: { store: false } } };
try {
  let text, steps, warnings;
  if (process.env.P53C_STREAM === '1') {
    let err;
    const r = streamText({ ...opts, onError: ({ error }) => { err = error; } });
    await r.consumeStream();
    if (err) throw err;
    text = await r.text; steps = (await r.steps).length; warnings = (await r.steps).flatMap(s => s.warnings ?? []);
  } else {
    const r = await generateText(opts);
    text = r.text; steps = r.steps.length; warnings = r.steps.flatMap(s => s.warnings ?? []);
  }
  console.log(JSON.stringify({ text, steps, warnings }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, status: e?.statusCode ?? e?.status, message: String(e?.message || e).slice(0, 400) }));
}
`

// p53cOpenAIJS is the openai JS SDK's manual tool loop as OpenAI's
// function-calling guide writes it (input.push(...response.output), then
// a function_call_output), whole (responses.create) or streamed
// (responses.stream(...).finalResponse()).
const p53cOpenAIJS = `
import OpenAI from 'openai';
const c = new OpenAI({ baseURL: process.env.P53C_BASE + '/v1', apiKey: 'k', maxRetries: 0 });
const tools = [{ type: 'function', name: 'get_weather', description: 'Get the weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true }];
const input = [{ role: 'user', content: 'weather in Paris?' }];
const ask = (p) => process.env.P53C_STREAM === '1' ? c.responses.stream(p).finalResponse() : c.responses.create(p);
try {
  const first = await ask({ model: process.env.P53C_MODEL, input, tools });
  input.push(...first.output);
  const call = first.output.find(o => o.type === 'function_call');
  input.push({ type: 'function_call_output', call_id: call.call_id, output: 'sunny in Paris' });
  const second = await ask({ model: process.env.P53C_MODEL, input, tools });
  console.log(JSON.stringify({ first: first.output, text: second.output_text }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, status: e?.status, message: String(e?.message || e).slice(0, 400) }));
}
`

// TestC53cCerebrasGptOssToolLoop: a route of one Cerebras gpt-oss-120b
// target. Cerebras returns gpt-oss's reasoning in "reasoning"; since
// 80c0f2c the door writes it as a reasoning item (chat.Said.Thinking reads
// reasoning too), the client hands it back as OpenAI's guide says, and the
// door sends it as reasoning_content, which Cerebras refuses for every
// model: "messages.2.assistant.reasoning_content: property … is
// unsupported" (NousResearch/hermes-agent#34716 for gpt-oss-120b and
// zai-glm-4.7; QwenLM/qwen-code#11049 strips it at the request boundary
// for api.cerebras.ai). Before 80c0f2c the reasoning was dropped and the
// loop worked. Failed after 80c0f2c, before reasoning_content was sent only where it is read (whole and streamed).
func TestC53cCerebrasGptOssToolLoop(t *testing.T) {
	for _, stream := range []string{"0", "1"} {
		t.Run("stream="+stream, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p53cDeepSeek, "cerebras": p53cCerebras})
			g := start(t, p53cCfg, fs)
			out := p53cNode(t, g.URL, p53cOpenAIJS, "P53C_MODEL=cbr", "P53C_STREAM="+stream)
			if !strings.Contains(out, `"text":"It is sunny in Paris."`) {
				t.Errorf("the tool loop on Cerebras gpt-oss did not finish: %s\nCerebras' last request: %.1500s", out, lastRaw(t, fs["cerebras"]))
			}
		})
	}
}

// p53cAgents is the OpenAI Agents SDK's (@openai/agents 0.20.0) tool loop
// over its Responses model, whole or streamed.
const p53cAgents = `
import OpenAI from 'openai';
import { z } from 'zod';
import { Agent, Runner, OpenAIProvider, setTracingDisabled, tool } from '@openai/agents';
setTracingDisabled(true);
const client = new OpenAI({ baseURL: process.env.P53C_BASE + '/v1', apiKey: 'k', maxRetries: 0, timeout: 20000 });
const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: client, useResponses: true }), tracingDisabled: true });
const getWeather = tool({ name: 'get_weather', description: 'Get the weather for a city', parameters: z.object({ city: z.string() }), execute: async ({ city }) => 'sunny in ' + city });
const agent = new Agent({ name: 'Assistant', instructions: 'Be brief.', model: process.env.P53C_MODEL, tools: [getWeather] });
try {
  let r;
  if (process.env.P53C_STREAM === '1') {
    r = await runner.run(agent, 'weather in Paris?', { stream: true });
    for await (const ev of r) {}
    await r.completed;
    if (r.error) throw r.error;
  } else {
    r = await runner.run(agent, 'weather in Paris?');
  }
  const items = r.history.map(i => i.type + (i.type === 'reasoning' ? ':' + JSON.stringify(i) : ''));
  console.log(JSON.stringify({ final: r.finalOutput, items, usage: { in: r.state.usage.inputTokens, out: r.state.usage.outputTokens, requests: r.state.usage.requests } }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, message: String(e?.message || e).slice(0, 400), status: e?.status }));
}
`

func TestC53cAgentsSDKToolLoopOnDeepSeek(t *testing.T) {
	for _, stream := range []string{"0", "1"} {
		t.Run("stream="+stream, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p53cDeepSeek, "cerebras": p53cCerebras})
			g := start(t, p53cCfg, fs)
			out := p53cNode(t, g.URL, p53cAgents, "P53C_MODEL=dsr", "P53C_STREAM="+stream)
			if !strings.Contains(out, `"final":"It is sunny in Paris."`) {
				t.Errorf("the Agents SDK's tool loop on DeepSeek did not finish: %s\nDeepSeek's last request: %.1500s", out, lastRaw(t, fs["deepseek"]))
			}
		})
	}
}

func TestC53cOpenAIJSToolLoopOnDeepSeek(t *testing.T) {
	for _, stream := range []string{"0", "1"} {
		t.Run("stream="+stream, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p53cDeepSeek, "cerebras": p53cCerebras})
			g := start(t, p53cCfg, fs)
			out := p53cNode(t, g.URL, p53cOpenAIJS, "P53C_MODEL=dsr", "P53C_STREAM="+stream)
			if !strings.Contains(out, `"text":"It is sunny in Paris."`) || !strings.Contains(out, `{"type":"reasoning_text","text":"`+p53cThought+`"}`) {
				t.Errorf("the tool loop on DeepSeek: %s\nDeepSeek's last request: %.1500s", out, lastRaw(t, fs["deepseek"]))
			}
		})
	}
}

// TestC53cFailoverDeepSeekToCerebrasMidLoop: route dscb = [DeepSeek,
// Cerebras gpt-oss-120b]. The first step of the openai JS SDK's tool loop
// is DeepSeek's (reasoning item + call); at the second DeepSeek is out of
// balance (402, the corpus case deepseek-insufficient-balance-402) and the
// route fails over to Cerebras with the conversation, which now carries
// the first step's reasoning as reasoning_content. Cerebras refuses that
// member (400 wrong_api_format, the corpus case
// cerebras-wrong-api-format-reasoning-content-unsupported), a bad_request
// that ends the request: the client gets Cerebras' 400 for a request it
// never malformed, where before 80c0f2c the failover answered. Failed before round 53's fix.
func TestC53cFailoverDeepSeekToCerebrasMidLoop(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return p53cDeepSeek(n, r)
			}
			return corpus(t, "deepseek-insufficient-balance-402")
		},
		"cerebras": p53cCerebras,
	})
	g := start(t, p53cCfg, fs)
	out := p53cNode(t, g.URL, p53cOpenAIJS, "P53C_MODEL=dscb", "P53C_STREAM=0")
	d := g.recs.wait(t, 2)
	b, _ := json.Marshal(d)
	t.Logf("second request's record: %s", b)
	if !strings.Contains(out, `"text":"It is sunny in Paris."`) {
		t.Errorf("the tool loop did not survive the failover: %s\nattempts %q\nCerebras got: %.1500s", out, steps(d), lastRaw(t, fs["cerebras"]))
	}
}

// TestC53cCodexLongerLoopOnDeepSeek: Codex (the real CLI) on DeepSeek's
// thinking mode through three steps: reasoning and a wait_agent call;
// reasoning, a line of text, more reasoning and a second call (DeepSeek
// may think between text and a call); then the answer. Every request
// after the first must carry each tool-call turn's reasoning_content.
func TestC53cCodexLongerLoopOnDeepSeek(t *testing.T) {
	const m = "deepseek-v4-flash"
	call := func(id string) string {
		return p53cChunk(m, `{"tool_calls":[{"index":0,"id":"`+id+`","type":"function","function":{"name":"multi_agent_v1__wait_agent","arguments":"{\"timeout_ms\":10}"}}]}`, "null")
	}
	end := `{"id":"p53c-1","object":"chat.completion.chunk","created":1777000000,"model":"` + m + `","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":900,"completion_tokens":30,"total_tokens":930,"completion_tokens_details":{"reasoning_tokens":18}}}`
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
		var req p53cReq
		_ = json.Unmarshal(r.Body, &req)
		calls := 0
		for _, msg := range req.Messages {
			if msg["role"] == "assistant" && msg["tool_calls"] != nil {
				calls++
				if msg["reasoning_content"] == nil {
					return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"The reasoning_content in the thinking mode must be passed back to the API.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`}
				}
			}
		}
		switch calls {
		case 0:
			return upstreamtest.Step{Events: []string{
				p53cChunk(m, `{"role":"assistant","content":null,"reasoning_content":"First I wait for the agents."}`, "null"),
				call("call_00_p53cwait1"), end, "[DONE]"}}
		case 1:
			return upstreamtest.Step{Events: []string{
				p53cChunk(m, `{"role":"assistant","content":null,"reasoning_content":"They are not done."}`, "null"),
				p53cChunk(m, `{"content":"Still waiting."}`, "null"),
				p53cChunk(m, `{"reasoning_content":"I wait once more."}`, "null"),
				call("call_00_p53cwait2"), end, "[DONE]"}}
		}
		return okStream(m, "agents ", "finished")
	}, "cerebras": p53cCerebras})
	g := start(t, p53cCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "wait for the agents", clienttest.Options{Args: []string{"-m", "dsr"}})
	t.Logf("stdout: %s\nstderr: %.3000s", res.Stdout, res.Stderr)
	reqs := fs["deepseek"].Requests()
	for i, r := range reqs {
		var req p53cReq
		_ = json.Unmarshal(r.Body, &req)
		for _, msg := range req.Messages {
			if msg["role"] == "assistant" {
				b, _ := json.Marshal(msg)
				t.Logf("DeepSeek request %d, assistant turn: %s", i+1, b)
			}
		}
	}
	if res.Err != nil || !strings.Contains(res.Stdout, "agents finished") {
		t.Errorf("codex: %v; printed %q, want the answer after two tool steps", res.Err, res.Stdout)
	}
}

const p53cCfgOthers = `
providers:
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
routes:
  - {name: dsclaude, targets: [ds, claude]}
  - {name: dsgem, targets: [ds, gem]}
`

// TestC53cFailoverDeepSeekToClaudeAndGemini: the same mid-loop failover
// (DeepSeek out of balance at step 2) onto a Claude and a Gemini target:
// the reasoning item the client hands back must not reach them in any
// form (the adapters build their own turns and send no
// reasoning_content), and the loop must finish.
func TestC53cFailoverDeepSeekToClaudeAndGemini(t *testing.T) {
	for _, route := range []string{"dsclaude", "dsgem"} {
		t.Run(route, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"deepseek": func(n int, r upstreamtest.Request) upstreamtest.Step {
					if n == 1 {
						return p53cDeepSeek(n, r)
					}
					return corpus(t, "deepseek-insufficient-balance-402")
				},
				"anthropic": script(upstreamtest.Step{Body: `{"id":"msg_p53c","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"It is sunny in Paris."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":40,"output_tokens":8}}`}),
				"gemini":    script(upstreamtest.Step{Body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"It is sunny in Paris."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":40,"candidatesTokenCount":8,"totalTokenCount":48},"modelVersion":"gemini-2.5-flash"}`}),
			})
			g := start(t, p53cCfgOthers, fs)
			out := p53cNode(t, g.URL, p53cOpenAIJS, "P53C_MODEL="+route, "P53C_STREAM=0")
			up := fs["anthropic"]
			if route == "dsgem" {
				up = fs["gemini"]
			}
			body := string(lastRaw(t, up))
			t.Logf("fallback got: %.2000s", body)
			if !strings.Contains(out, `"text":"It is sunny in Paris."`) {
				t.Errorf("the loop did not finish on the fallback: %s", out)
			}
			if strings.Contains(body, "I should call get_weather") || strings.Contains(body, "reasoning_content") {
				t.Errorf("DeepSeek's reasoning reached the fallback: %.2000s", body)
			}
		})
	}
}

// TestC53cOpenAIGoStreamInterleavedReasoning: openai-go's Responses stream
// of a DeepSeek answer that thinks, writes a line, thinks again and calls
// a tool; every event goes through the SDK's ResponseAccumulator, and the
// final response must hold reasoning, message, reasoning, function_call
// with the reasoning texts, usage's reasoning_tokens, and the decision
// record's usage.
func TestC53cOpenAIGoStreamInterleavedReasoning(t *testing.T) {
	const m = "deepseek-v4-flash"
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": script(upstreamtest.Step{Events: []string{
		p53cChunk(m, `{"role":"assistant","content":null,"reasoning_content":"Think one."}`, "null"),
		p53cChunk(m, `{"content":"Let me check."}`, "null"),
		p53cChunk(m, `{"reasoning_content":"Think two."}`, "null"),
		p53cChunk(m, `{"tool_calls":[{"index":0,"id":"call_00_p53cw","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`, "null"),
		`{"id":"p53c-1","object":"chat.completion.chunk","created":1777000000,"model":"` + m + `","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":120,"completion_tokens":40,"total_tokens":160,"completion_tokens_details":{"reasoning_tokens":20}}}`,
		"[DONE]"}}), "cerebras": p53cCerebras})
	g := start(t, p53cCfg, fs)
	p := responses.ResponseNewParams{Model: "dsr", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("weather in Paris?")}}
	p.Tools = []responses.ToolUnionParam{responses.ToolParamOfFunction("get_weather", map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}, false)}
	s := sdk(g).Responses.NewStreaming(context.Background(), p)
	var racc responses.ResponseAccumulator
	var kinds []string
	var deltas []string
	var completed *responses.Response
	for s.Next() {
		ev := s.Current()
		kinds = append(kinds, ev.Type)
		var sev responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(ev.RawJSON()), &sev); err != nil {
			t.Errorf("%s: %v", ev.Type, err)
		} else if err := racc.AddEvent(sev); err != nil {
			t.Errorf("the SDK's ResponseAccumulator refused %s: %v", ev.RawJSON(), err)
		}
		switch e := ev.AsAny().(type) {
		case responses.ResponseReasoningTextDeltaEvent:
			deltas = append(deltas, e.Delta)
		case responses.ResponseCompletedEvent:
			r := e.Response
			completed = &r
		}
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	t.Logf("events: %q", kinds)
	if completed == nil {
		t.Fatal("no response.completed")
	}
	var types []string
	for _, o := range completed.Output {
		types = append(types, o.Type)
	}
	if strings.Join(types, ",") != "reasoning,message,reasoning,function_call" {
		t.Errorf("output %q: %s", types, completed.RawJSON())
	}
	if len(completed.Output) > 2 && (completed.Output[0].AsReasoning().Content[0].Text != "Think one." || completed.Output[2].AsReasoning().Content[0].Text != "Think two.") {
		t.Errorf("reasoning texts: %s", completed.RawJSON())
	}
	if strings.Join(deltas, "|") != "Think one.|Think two." {
		t.Errorf("reasoning_text deltas %q", deltas)
	}
	if completed.Usage.OutputTokensDetails.ReasoningTokens != 20 {
		t.Errorf("usage %s", completed.Usage.RawJSON())
	}
	if rr, err := racc.ReconstructedResponse(); err != nil || len(rr.Output) != 4 {
		t.Errorf("accumulator: %v %v", err, rr)
	}
	snap := racc.Snapshot()
	b, _ := json.Marshal(snap)
	t.Logf("accumulator snapshot: %s", b)
	d := g.recs.wait(t, 1)
	db, _ := json.Marshal(d)
	t.Logf("decision record: %s", db)
}

// p53cTwoTurns is the openai JS SDK's plain two-turn chat (no tools), the
// history kept as OpenAI's conversation-state guide writes it:
// input.push(...response.output), then the next user message.
const p53cTwoTurns = `
import OpenAI from 'openai';
const c = new OpenAI({ baseURL: process.env.P53C_BASE + '/v1', apiKey: 'k', maxRetries: 0 });
const input = [{ role: 'user', content: 'Tell me a joke.' }];
try {
  const first = await c.responses.create({ model: process.env.P53C_MODEL, input });
  input.push(...first.output);
  input.push({ role: 'user', content: 'Another one.' });
  const second = await c.responses.create({ model: process.env.P53C_MODEL, input });
  console.log(JSON.stringify({ first: first.output.map(o => o.type), text: second.output_text }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, status: e?.status, message: String(e?.message || e).slice(0, 400) }));
}
`

// TestC53cCerebrasGptOssSecondTurn: no tools at all. gpt-oss on Cerebras
// reasons on every answer, so the first answer is a reasoning item and a
// message; handed back, the door puts the reasoning on the assistant
// message as reasoning_content and Cerebras refuses the second turn —
// the "first message works, second always fails" of
// NousResearch/hermes-agent#34716. Failed before round 53's fix.
func TestC53cCerebrasGptOssSecondTurn(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p53cDeepSeek, "cerebras": func(n int, r upstreamtest.Request) upstreamtest.Step {
		st := p53cCerebras(n, r)
		if st.Status != 0 {
			return st
		}
		return upstreamtest.Step{Body: `{"id":"p53c-1","object":"chat.completion","created":1777000000,"model":"gpt-oss-120b","choices":[{"index":0,"message":{"role":"assistant","content":"Why did the gopher cross the road?","reasoning":"The user wants a joke. A short one."},"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":30,"total_tokens":50}}`}
	}})
	g := start(t, p53cCfg, fs)
	out := p53cNode(t, g.URL, p53cTwoTurns, "P53C_MODEL=cbr")
	if !strings.Contains(out, `"text":"Why did the gopher cross the road?"`) {
		t.Errorf("the second turn on Cerebras gpt-oss failed: %s\nCerebras got: %.1500s", out, lastRaw(t, fs["cerebras"]))
	}
}

// TestC53cCodexOnCerebrasGptOss: Codex (the real CLI) on route cbr: the
// first step's gpt-oss reasoning (Cerebras' "reasoning" field) comes back
// from Codex as a reasoning item and goes to Cerebras as
// reasoning_content, which it refuses. Failed before round 53's fix.
func TestC53cCodexOnCerebrasGptOss(t *testing.T) {
	const m = "gpt-oss-120b"
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": p53cDeepSeek, "cerebras": func(n int, r upstreamtest.Request) upstreamtest.Step {
		st := p53cCerebras(n, r)
		if st.Status != 0 {
			return st
		}
		if n == 1 {
			return upstreamtest.Step{Events: []string{
				p53cChunk(m, `{"role":"assistant","content":null,"reasoning":"I wait for the agents."}`, "null"),
				p53cChunk(m, `{"tool_calls":[{"index":0,"id":"call_p53ccb1","type":"function","function":{"name":"multi_agent_v1__wait_agent","arguments":"{\"timeout_ms\":10}"}}]}`, "null"),
				p53cChunk(m, `{}`, `"tool_calls"`), "[DONE]"}}
		}
		return okStream(m, "agents ", "finished")
	}})
	g := start(t, p53cCfg, fs)
	res := clienttest.RunCodex(t, g.URL, "wait for the agents", clienttest.Options{Args: []string{"-m", "cbr"}})
	t.Logf("stdout: %s\nstderr: %.2500s", res.Stdout, res.Stderr)
	if res.Err != nil || !strings.Contains(res.Stdout, "agents finished") {
		t.Errorf("codex on Cerebras gpt-oss: %v; printed %q\nCerebras got: %.1500s", res.Err, res.Stdout, lastRaw(t, fs["cerebras"]))
	}
}

const p53cCfgIntoDS = `
providers:
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: ds, model: deepseek-v4-flash, providers: [deepseek]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: claudeds, targets: [claude, ds]}
`

// TestC53cReasoningCutByLength: DeepSeek runs out of max_tokens while
// still thinking (only reasoning_content, finish_reason "length"), whole
// and streamed: the response is incomplete (max_output_tokens) and its
// reasoning item is "incomplete" in both.
func TestC53cReasoningCutByLength(t *testing.T) {
	const m = "deepseek-v4-flash"
	whole := `{"id":"p53c-1","object":"chat.completion","created":1777000000,"model":"` + m + `","choices":[{"index":0,"message":{"role":"assistant","content":"","reasoning_content":"Still thinking about"},"finish_reason":"length"}],"usage":{"prompt_tokens":20,"completion_tokens":16,"total_tokens":36,"completion_tokens_details":{"reasoning_tokens":16}}}`
	stream := []string{
		p53cChunk(m, `{"role":"assistant","content":null,"reasoning_content":"Still thinking about"}`, "null"),
		`{"id":"p53c-1","object":"chat.completion.chunk","created":1777000000,"model":"` + m + `","choices":[{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}],"usage":{"prompt_tokens":20,"completion_tokens":16,"total_tokens":36,"completion_tokens_details":{"reasoning_tokens":16}}}`,
		"[DONE]"}
	fs := fakes(t, map[string]upstreamtest.Script{"deepseek": script(upstreamtest.Step{Body: whole}, upstreamtest.Step{Events: stream}), "cerebras": p53cCerebras})
	g := start(t, p53cCfg, fs)
	p := responses.ResponseNewParams{Model: "dsr", Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("think")}, MaxOutputTokens: openai.Int(16)}
	r1, err := sdk(g).Responses.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	s := sdk(g).Responses.NewStreaming(context.Background(), p)
	var r2 *responses.Response
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "response.completed", "response.incomplete":
			r := ev.Response
			r2 = &r
		}
	}
	if r2 == nil {
		t.Fatalf("no terminal event: %v", s.Err())
	}
	for i, r := range []*responses.Response{r1, r2} {
		t.Logf("%d: %s", i, r.RawJSON())
		if r.Status != "incomplete" || len(r.Output) != 1 || r.Output[0].Type != "reasoning" || r.Output[0].Status != "incomplete" {
			t.Errorf("response %d: status %q output %s", i, r.Status, r.RawJSON())
		}
	}
}
