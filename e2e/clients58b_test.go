package e2e

// Probe 58b: what real JS clients do when a stream fails after Detour's
// commit point, at each door, for each way it can fail: an upstream cut
// inside a tool call, an Anthropic overloaded_error inside a tool call,
// OpenRouter's in-band finish_reason "error" after text, a stall past
// idle_timeout, an OpenAI-dialect content_filter inside a tool call,
// Anthropic's "Output blocked by content filtering policy" after text, a
// native Responses upstream's response.failed / error, and a cut the route
// continues. (tlen, a length cut inside
// a call, is kept for comparison; no test asserts on it.)

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

const p58bCfg = `
client_keys: [test]
providers:
  - {name: tcut, dialect: openai, base_url: "{tcut}", api_key: ` + secret + `}
  - {name: tjson, dialect: openai, base_url: "{tjson}", api_key: ` + secret + `}
  - {name: tfilter, dialect: openai, base_url: "{tfilter}", api_key: ` + secret + `}
  - {name: tlen, dialect: openai, base_url: "{tlen}", api_key: ` + secret + `}
  - {name: ortxt, dialect: openai, base_url: "{ortxt}", api_key: ` + secret + `}
  - {name: stall, dialect: openai, base_url: "{stall}", api_key: ` + secret + `, idle_timeout: 500ms}
  - {name: acut, dialect: anthropic, base_url: "{acut}", api_key: ` + secret + `}
  - {name: afilter, dialect: anthropic, base_url: "{afilter}", api_key: ` + secret + `}
  - {name: ccut, dialect: openai, base_url: "{ccut}", api_key: ` + secret + `}
  - {name: crep, dialect: openai, base_url: "{crep}", api_key: ` + secret + `}
  - {name: cpre, dialect: anthropic, base_url: "{cpre}", api_key: ` + secret + `}
  - {name: rbio, dialect: openai, base_url: "{rbio}", api_key: ` + secret + `, responses: true}
  - {name: rcap, dialect: openai, base_url: "{rcap}", api_key: ` + secret + `, responses: true}
  - {name: rover, dialect: openai, base_url: "{rover}", api_key: ` + secret + `, responses: true}
  - {name: rtcut, dialect: openai, base_url: "{rtcut}", api_key: ` + secret + `, responses: true}
targets:
  - {name: tcut, model: gpt-4o, providers: [tcut]}
  - {name: tjson, model: gpt-4o, providers: [tjson]}
  - {name: tfilter, model: gpt-4o, providers: [tfilter]}
  - {name: tlen, model: gpt-4o, providers: [tlen]}
  - {name: ortxt, model: openai/gpt-4o, providers: [ortxt]}
  - {name: stall, model: gpt-4o, providers: [stall]}
  - {name: acut, model: claude-sonnet-4-5, providers: [acut]}
  - {name: afilter, model: claude-sonnet-4-5, providers: [afilter]}
  - {name: rbio, model: gpt-5-mini, providers: [rbio]}
  - {name: ccut, model: gpt-4o, providers: [ccut]}
  - {name: crep, model: gpt-4o, providers: [crep]}
  - {name: cpre, model: claude-sonnet-4-5, providers: [cpre], prefill: true}
  - {name: rcap, model: gpt-5-mini, providers: [rcap]}
  - {name: rover, model: gpt-5-mini, providers: [rover]}
  - {name: rtcut, model: gpt-5-mini, providers: [rtcut]}
routes:
  - {name: contrep, targets: [ccut, crep], on_stream_cut: continue}
  - {name: contpre, targets: [ccut, cpre], on_stream_cut: continue}
`

// p58bChatHead opens an OpenAI chat.completion.chunk (OpenAI's streaming
// shape, https://platform.openai.com/docs/api-reference/chat-streaming).
const p58bChatHead = `{"id":"chatcmpl-p58b","object":"chat.completion.chunk","created":1765000000,"model":"gpt-4o-2024-08-06","system_fingerprint":"fp_p58b","choices":[`

// p58bToolEvents: a write_file call whose arguments so far are args.
func p58bToolEvents(args string) []string {
	a, _ := json.Marshal(args)
	return []string{
		p58bChatHead + `{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_p58b","type":"function","function":{"name":"write_file","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`,
		p58bChatHead + `{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":` + string(a) + `}}]},"logprobs":null,"finish_reason":null}]}`,
	}
}

// p58bAnthropicTool: Anthropic's tool_use stream (docs "Streaming
// Messages", input_json_delta) whose input so far is partial, then
// Anthropic's mid-stream overloaded_error (corpus
// anthropic-sse-overloaded-error-midstream).
func p58bAnthropicTool(t *testing.T) []string {
	ev := func(typ string, v map[string]any) string {
		v["type"] = typ
		b, _ := json.Marshal(v)
		return "event: " + typ + "\ndata: " + string(b)
	}
	return append([]string{
		ev("message_start", map[string]any{"message": map[string]any{"id": "msg_p58b", "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 11, "output_tokens": 1}}}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_p58b", "name": "write_file", "input": map[string]any{}}}),
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": `{"path": "a.txt", "content": "hello wor`}}),
	}, corpus(t, "anthropic-sse-overloaded-error-midstream").Events...)
}

func p58bScripts(t *testing.T) map[string]upstreamtest.Script {
	text := []string{p58bChatHead + `{"index":0,"delta":{"role":"assistant","content":"partial "},"logprobs":null,"finish_reason":null}]}`}
	native := func(tail ...string) upstreamtest.Step {
		evs := nativeEvents()[:4]
		evs[3] = strings.Replace(evs[3], `"delta":"native "`, `"delta":"partial "`, 1)
		return upstreamtest.Step{Events: append(evs, tail...)}
	}
	nativeCall := []string{nativeEvents()[0],
		`event: response.output_item.added` + "\n" + `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":{"id":"fc_up","type":"function_call","status":"in_progress","arguments":"","call_id":"call_up","name":"write_file"}}`,
		`event: response.function_call_arguments.delta` + "\n" + `data: {"type":"response.function_call_arguments.delta","sequence_number":2,"item_id":"fc_up","output_index":0,"delta":"{\"path\":\"a.txt\",\"content\":\"hello wor"}`}
	return map[string]upstreamtest.Script{
		"rbio":  script(native(corpus(t, "openai-responses-stream-failed-bio-policy-flagged-biological-risk-200").Events...)),
		"rcap":  script(native(corpus(t, "openai-responses-stream-failed-selected-model-at-capacity-200").Events...)),
		"rover": script(native(corpus(t, "openai-responses-sse-error-server-is-overloaded-200").Events...)),
		"ccut": script(upstreamtest.Step{Events: []string{p58bChatHead + `{"index":0,"delta":{"role":"assistant","content":"The capital"},"logprobs":null,"finish_reason":null}]}`,
			p58bChatHead + `{"index":0,"delta":{"content":" of France"},"logprobs":null,"finish_reason":null}]}`}, Cut: true}),
		"crep": script(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-2024-08-06", "The capital", " of France", " is Paris.")}),
		"cpre": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"role":"assistant"`) {
				return upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", " is Paris.")}
			}
			return upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "The capital of France is Paris.")}
		},
		"rtcut": script(upstreamtest.Step{Events: nativeCall, Cut: true}),
		"tcut":  script(upstreamtest.Step{Events: p58bToolEvents(`{"path":"a.txt","content":"hello wor`), Cut: true}),
		"tjson": script(upstreamtest.Step{Events: p58bToolEvents(`{"path":"a.txt","content":"hello"}`), Cut: true}),
		"tlen": script(upstreamtest.Step{Events: append(p58bToolEvents(`{"path":"a.txt","content":"hello wor`),
			p58bChatHead+`{"index":0,"delta":{},"logprobs":null,"finish_reason":"length"}]}`, "[DONE]")}),
		"tfilter": script(upstreamtest.Step{Events: append(p58bToolEvents(`{"path":"a.txt","content":"hello wor`),
			p58bChatHead+`{"index":0,"delta":{},"logprobs":null,"finish_reason":"content_filter"}]}`, "[DONE]")}),
		"ortxt": script(upstreamtest.Step{Events: append(append([]string{}, text...),
			corpus(t, "openrouter-stream-mid-stream-server-error-provider-disconnected-200").Events...)}),
		"stall": script(upstreamtest.Step{Events: text, Stall: true}),
		"acut":  script(upstreamtest.Step{Events: p58bAnthropicTool(t)}),
		"afilter": script(upstreamtest.Step{Events: append(anthropicEvents("claude-sonnet-4-5", "partial ")[:4],
			corpus(t, "anthropic-sse-error-output-blocked-content-filtering-policy-midstream").Events...)}),
	}
}

// p58bResult is one client's line.
type p58bResult struct {
	Client string                           `json:"client"`
	Ran    []json.RawMessage                `json:"ran"`
	Text   string                           `json:"text"`
	Finish any                              `json:"finish"`
	Calls  json.RawMessage                  `json:"calls"`
	Types  []string                         `json:"types"`
	Error  *struct{ Class, Message string } `json:"error"`
	Thrown *struct{ Class, Message string } `json:"thrown"`
	raw    string
}

func p58bNode(t *testing.T, g *gateway, route string, clients ...string) map[string]p58bResult {
	t.Helper()
	dir := os.Getenv("DETOUR_CLIENTS_DIR")
	if dir == "" {
		dir = filepath.Join(os.Getenv("HOME"), ".cache", "detour", "npm-clients")
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@openai", "agents")); err != nil {
		t.Skip("no JS clients under", dir)
	}
	cmd := exec.Command("node", "--input-type=module", "-e", p58bScript)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "P58B_BASE="+g.URL, "P58B_MODEL="+route, "P58B_CLIENTS="+strings.Join(clients, ","), "OPENAI_AGENTS_DISABLE_TRACING=1")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, out)
	}
	res := map[string]p58bResult{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r p58bResult
		if json.Unmarshal([]byte(line), &r) == nil && r.Client != "" {
			r.raw = line
			res[r.Client] = r
			t.Logf("%s %s", route, line)
		}
	}
	return res
}

// p58bFailed: the client reported the failure to the app — an exception,
// or for the AI SDK the error part / finish "error" of its fullStream.
func (r p58bResult) failed() bool {
	return r.Error != nil || r.Thrown != nil || r.Finish == "error"
}

// TestP58bStreamFailuresReachEveryJSClient (passes now; coverage the
// earlier probes lacked): after Detour's commit point, each way a stream
// fails — an upstream cut inside a tool call (complete or not), an
// Anthropic overloaded_error inside a tool_use block, OpenRouter's in-band
// finish_reason "error" after text, a stall past idle_timeout, Anthropic's
// "Output blocked by content filtering policy" event, and at the Responses
// door a native upstream's response.failed (bio_policy, "Selected model is
// at capacity"), error + response.failed, and a cut function call — is
// raised (or, in the AI SDK, an error part and finishReason "error") by
// every JS client, with the provider's words, and no tool runs. A cut the
// route continues (on_stream_cut: continue, by replay or by prefill at a
// Claude target) reaches each client as one whole answer.
func TestP58bStreamFailuresReachEveryJSClient(t *testing.T) {
	words := map[string]string{"tcut": "stream was cut", "tjson": "stream was cut", "acut": "Overloaded",
		"ortxt": "Provider disconnected unexpectedly", "stall": "idle timeout", "afilter": "Output blocked by content filtering policy",
		"rbio": "biological risk", "rcap": "Selected model is at capacity", "rover": "currently overloaded", "rtcut": "stream was cut"}
	responsesOnly := map[string]bool{"rbio": true, "rcap": true, "rover": true, "rtcut": true}
	for route, word := range words {
		t.Run(route, func(t *testing.T) {
			t.Parallel()
			g := start(t, p58bCfg, fakes(t, p58bScripts(t)))
			var clients []string
			if responsesOnly[route] {
				clients = []string{"ai_responses", "lc_responses", "openai_responses", "agents_responses"}
			}
			res := p58bNode(t, g, route, clients...)
			if len(res) == 0 {
				t.Fatal("no client answered")
			}
			for name, r := range res {
				msg := ""
				if r.Error != nil {
					msg = r.Error.Message
				}
				if !r.failed() || !strings.Contains(msg, word) {
					t.Errorf("%s: %s: want an error carrying %q", name, r.raw, word)
				}
				if len(r.Ran) > 0 {
					t.Errorf("%s ran the tool: %s", name, r.raw)
				}
			}
		})
	}
	for _, route := range []string{"contrep", "contpre"} {
		t.Run(route, func(t *testing.T) {
			t.Parallel()
			g := start(t, p58bCfg, fakes(t, p58bScripts(t)))
			for name, r := range p58bNode(t, g, route) {
				if r.failed() || r.Text != "The capital of France is Paris." {
					t.Errorf("%s: %s: want the continued answer whole", name, r.raw)
				}
			}
		})
	}
}

// TestP58bFilteredToolCallIsNotAFinishedCall (it failed before round 58's
// fix in the openai adapter): an OpenAI-dialect
// upstream (Azure OpenAI's output filter) stops a write_file call inside
// its content string with finish_reason "content_filter". The Messages
// door closed the tool_use block (content_block_stop) and ended
// stop_reason "refusal"; the Responses door ended response.incomplete
// (content_filter) with the call incomplete. Neither was an error, and
// LangChain JS does not look at either: @langchain/anthropic keeps
// message_delta's stop_reason in additional_kwargs only
// (dist/utils/message_outputs.js lines 24-40) and @langchain/core collapses
// the streamed argument pieces with parsePartialJson
// (dist/messages/utils.js line 307), which closes the open string — so
// ChatAnthropic and ChatOpenAI(useResponsesApi) hand the app a valid
// tool_calls[0] write_file {path:"a.txt", content:"hello wor"}, no
// invalid_tool_calls, no exception: the half file a LangGraph ToolNode
// writes. docs/doors.md wants the opposite for the same cut in a whole
// answer ("a client that runs the call anyway gets a missing argument
// rather than half a file"). Anthropic's own output filter ends a stream
// with `event: error` "Output blocked by content filtering policy"
// (corpus anthropic-sse-error-output-blocked-content-filtering-policy-
// midstream, vercel/ai#2463), which every client raises on (the afilter
// case above); a filtered call can never be completed, so it ends that
// way at every door now.
func TestP58bFilteredToolCallIsNotAFinishedCall(t *testing.T) {
	g := start(t, p58bCfg, fakes(t, p58bScripts(t)))
	for name, r := range p58bNode(t, g, "tfilter", "lc_anthropic", "lc_responses") {
		if !r.failed() && strings.Contains(string(r.Calls), `"hello wor"`) {
			t.Errorf("%s: a tool call a content filter cut ends with no error and runnable arguments: %s", name, r.raw)
		}
	}
}

// p58bScript runs each JS client (P58B_CLIENTS, all when empty) on one
// streamed request offering a write_file tool whose execute records its
// arguments, and prints one JSON line per client: the text, the tool
// calls it assembled, the tool runs, the finish, and the error it raised.
const p58bScript = `// probe58b: each real JS client on one streamed request with a tool, through
// one Detour door; prints one JSON line per client.
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { ChatOpenAI } from '@langchain/openai';
import { ChatAnthropic } from '@langchain/anthropic';
import { streamText, tool as aiTool, jsonSchema, stepCountIs } from 'ai';
import { createOpenAI } from '@ai-sdk/openai';
import { createAnthropic } from '@ai-sdk/anthropic';
import { createOpenAICompatible } from '@ai-sdk/openai-compatible';
import { Agent, Runner, OpenAIProvider, tool as agTool, setTracingDisabled } from '@openai/agents';
import { z } from 'zod';
setTracingDisabled(true);
globalThis.AI_SDK_LOG_WARNINGS = false;
const base = process.env.P58B_BASE, model = process.env.P58B_MODEL, only = (process.env.P58B_CLIENTS || '').split(',').filter(Boolean);
const prompt = 'Write hello world to a.txt';
const schema = { type: 'object', properties: { path: { type: 'string' }, content: { type: 'string' } }, required: ['path', 'content'], additionalProperties: false };
const oa = new OpenAI({ baseURL: base + '/v1', apiKey: 'test', maxRetries: 0, timeout: 20000 });
const an = new Anthropic({ baseURL: base, apiKey: 'test', maxRetries: 0, timeout: 20000 });
const errOf = (e) => ({ class: e?.constructor?.name, message: String(e?.message ?? e).slice(0, 240) });
let ran = [];
const exec = async (args) => { ran.push(args); return 'written'; };

async function ai(m) {
  const out = { text: '', calls: [], types: [] };
  const r = streamText({ model: m, prompt, maxRetries: 0, stopWhen: stepCountIs(1),
    tools: { write_file: aiTool({ description: 'Write a file', inputSchema: jsonSchema(schema), execute: exec }) },
    onError: ({ error }) => { out.onError = errOf(error); } });
  for await (const p of r.fullStream) {
    if (!out.types.includes(p.type)) out.types.push(p.type);
    if (p.type === 'text-delta') out.text += p.text ?? p.delta ?? '';
    if (p.type === 'tool-call') out.calls.push({ name: p.toolName, input: p.input, invalid: p.invalid });
    if (p.type === 'error') out.error = errOf(p.error);
    if (p.type === 'finish') out.finish = p.finishReason;
  }
  return out;
}
const lcTool = { type: 'function', function: { name: 'write_file', description: 'Write a file', parameters: schema } };
async function lc(llm) {
  const out = { text: '' };
  let acc;
  try {
    for await (const c of await llm.bindTools([lcTool]).stream(prompt)) acc = acc ? acc.concat(c) : c;
  } catch (e) { out.error = errOf(e); }
  if (acc) {
    out.text = typeof acc.content === 'string' ? acc.content : (acc.content || []).map((p) => p.text || '').join('');
    out.calls = acc.tool_calls?.map((c) => ({ name: c.name, input: c.args }));
    out.invalid = acc.invalid_tool_calls?.map((c) => ({ name: c.name, args: c.args, error: c.error }));
    out.finish = acc.response_metadata?.finish_reason ?? acc.response_metadata?.stop_reason ?? acc.response_metadata?.status;
  }
  return out;
}
async function agents(useResponses) {
  const runner = new Runner({ modelProvider: new OpenAIProvider({ openAIClient: oa, useResponses }), tracingDisabled: true });
  const agent = new Agent({ name: 'Writer', instructions: 'Use the tool.', model,
    tools: [agTool({ name: 'write_file', description: 'Write a file', parameters: z.object({ path: z.string(), content: z.string() }), execute: exec })] });
  const out = { text: '', types: [] };
  let s;
  try {
    s = await runner.run(agent, prompt, { stream: true, maxTurns: 1 });
    for await (const ev of s) {
      const t = ev.type + (ev.type === 'raw_model_stream_event' ? ':' + ev.data.type : '');
      if (!out.types.includes(t)) out.types.push(t);
      if (ev.type === 'raw_model_stream_event' && ev.data.type === 'output_text_delta') out.text += ev.data.delta;
    }
    await s.completed;
    if (s.error) throw s.error;
    out.final = s.finalOutput;
  } catch (e) { out.error = errOf(e); }
  return out;
}
const clients = {
  ai_chat: () => ai(createOpenAI({ baseURL: base + '/v1', apiKey: 'test' }).chat(model)),
  ai_compat: () => ai(createOpenAICompatible({ name: 'detour', baseURL: base + '/v1', apiKey: 'test' }).chatModel(model)),
  ai_responses: () => ai(createOpenAI({ baseURL: base + '/v1', apiKey: 'test' }).responses(model)),
  ai_anthropic: () => ai(createAnthropic({ baseURL: base + '/v1', apiKey: 'test' })(model)),
  lc_chat: () => lc(new ChatOpenAI({ model, apiKey: 'test', maxRetries: 0, configuration: { baseURL: base + '/v1' } })),
  lc_responses: () => lc(new ChatOpenAI({ model, apiKey: 'test', maxRetries: 0, useResponsesApi: true, configuration: { baseURL: base + '/v1' } })),
  lc_anthropic: () => lc(new ChatAnthropic({ model, apiKey: 'test', maxRetries: 0, anthropicApiUrl: base, maxTokens: 200 })),
  openai_chat: async () => {
    const out = { text: '' };
    try {
      const s = oa.chat.completions.stream({ model, messages: [{ role: 'user', content: prompt }], tools: [lcTool] });
      for await (const c of s) out.text += c.choices?.[0]?.delta?.content ?? '';
      const f = await s.finalChatCompletion();
      out.finish = f.choices[0].finish_reason;
      out.calls = f.choices[0].message.tool_calls?.map((c) => ({ name: c.function.name, input: c.function.arguments }));
    } catch (e) { out.error = errOf(e); }
    return out;
  },
  openai_responses: async () => {
    const out = { text: '', types: [] };
    try {
      const s = oa.responses.stream({ model, input: prompt, tools: [{ type: 'function', name: 'write_file', parameters: schema, strict: false }] });
      for await (const e of s) { if (!out.types.includes(e.type)) out.types.push(e.type); if (e.type === 'response.output_text.delta') out.text += e.delta; }
      const f = await s.finalResponse();
      out.finish = f.status;
      out.calls = f.output.filter((o) => o.type === 'function_call').map((o) => ({ name: o.name, input: o.arguments, status: o.status }));
    } catch (e) { out.error = errOf(e); }
    return out;
  },
  anthropic: async () => {
    const out = { text: '', types: [] };
    try {
      const s = an.messages.stream({ model, max_tokens: 200, messages: [{ role: 'user', content: prompt }], tools: [{ name: 'write_file', description: 'Write a file', input_schema: schema }] });
      for await (const e of s) { if (!out.types.includes(e.type)) out.types.push(e.type); if (e.type === 'content_block_delta' && e.delta.type === 'text_delta') out.text += e.delta.text; }
      const f = await s.finalMessage();
      out.finish = f.stop_reason;
      out.calls = f.content.filter((b) => b.type === 'tool_use').map((b) => ({ name: b.name, input: b.input }));
    } catch (e) { out.error = errOf(e); }
    return out;
  },
  agents_responses: () => agents(true),
  agents_chat: () => agents(false),
};
for (const [name, fn] of Object.entries(clients)) {
  if (only.length && !only.includes(name)) continue;
  ran = [];
  let out;
  try { out = await fn(); } catch (e) { out = { thrown: errOf(e) }; }
  console.log(JSON.stringify({ client: name, ran, ...out }));
}
`
