package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 54, helper probe54a: the newer Chat Completions request members
// 2025–2026 clients send, through /v1/chat/completions onto targets that
// are not OpenAI (and onto OpenAI itself).

const p54aCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: mistral, dialect: openai, base_url: "{mistral}", api_key: ` + secret + `}
  - {name: groq, dialect: openai, base_url: "{groq}", api_key: ` + secret + `}
  - {name: vllm, dialect: openai, base_url: "{vllm}", api_key: ` + secret + `}
  - {name: deepseek, dialect: openai, base_url: "{deepseek}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
  - {name: mis, model: mistral-medium-latest, providers: [mistral]}
  - {name: grq, model: llama-3.3-70b-versatile, providers: [groq]}
  - {name: vl, model: Qwen/Qwen3-8B, providers: [vllm]}
  - {name: ds, model: deepseek-reasoner, providers: [deepseek]}
  - {name: gpt, model: gpt-5-mini, providers: [openai]}
routes:
  - {name: claude-first, targets: [claude, gpt]}
  - {name: gemini-first, targets: [gem, gpt]}
  - {name: mistral-first, targets: [mis, gpt]}
  - {name: groq-first, targets: [grq, gpt]}
  - {name: vllm-first, targets: [vl, gpt]}
  - {name: deepseek-first, targets: [ds, gpt]}
`

const p54aClaudeAnswer = `{"id":"msg_01p54a","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Hello from Claude."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":5}}`

const p54aGeminiAnswer = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello from Gemini."}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":12,"candidatesTokenCount":5,"totalTokenCount":17},"modelVersion":"gemini-2.5-flash"}`

func p54aFakes(t *testing.T, vendor map[string]upstreamtest.Script) map[string]*upstreamtest.Server {
	s := map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: p54aClaudeAnswer}),
		"gemini":    script(upstreamtest.Step{Body: p54aGeminiAnswer}),
		"mistral":   script(ok("mistral-medium-latest", "Hello from Mistral.")),
		"groq":      script(ok("llama-3.3-70b-versatile", "Hello from Groq.")),
		"vllm":      script(ok("Qwen/Qwen3-8B", "Hello from vLLM.")),
		"deepseek":  script(ok("deepseek-reasoner", "Hello from DeepSeek.")),
		"openai":    script(ok("gpt-5-mini", "Hello from OpenAI.")),
	}
	for k, v := range vendor {
		s[k] = v
	}
	return fakes(t, s)
}

var p54aMembers = map[string]string{
	"reasoning_effort_minimal": `,"reasoning_effort":"minimal"`,
	"reasoning_effort_none":    `,"reasoning_effort":"none"`,
	"reasoning_effort_xhigh":   `,"reasoning_effort":"xhigh"`,
	"verbosity":                `,"verbosity":"low"`,
	"prompt_cache_key":         `,"prompt_cache_key":"session-42"`,
	"safety_identifier":        `,"safety_identifier":"user-7f3a"`,
	"service_tier_flex":        `,"service_tier":"flex"`,
	"service_tier_priority":    `,"service_tier":"priority"`,
	"store_metadata":           `,"store":true,"metadata":{"app":"probe"}`,
	"prediction":               `,"prediction":{"type":"content","content":"Hello"}`,
	"modalities_text":          `,"modalities":["text"]`,
	"modalities_audio":         `,"modalities":["text","audio"],"audio":{"voice":"alloy","format":"wav"}`,
	"web_search_options":       `,"web_search_options":{"search_context_size":"low"}`,
	"parallel_tool_calls":      `,"parallel_tool_calls":false,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`,
	"logit_bias":               `,"logit_bias":{"50256":-100}`,
	"seed":                     `,"seed":7`,
	"top_logprobs":             `,"logprobs":true,"top_logprobs":3`,
	"include_obfuscation":      `,"stream":true,"stream_options":{"include_usage":true,"include_obfuscation":false}`,
	"json_schema_strict":       `,"response_format":{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}}}`,
	"json_object":              `,"response_format":{"type":"json_object"}`,
	"custom_tool":              `,"tools":[{"type":"custom","custom":{"name":"run_sql","description":"run SQL","format":{"type":"grammar","grammar":{"syntax":"lark","definition":"start: /SELECT .+/"}}}}]`,
	"allowed_tools":            `,"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}},{"type":"function","function":{"name":"get_time","parameters":{"type":"object","properties":{}}}}],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[{"type":"function","function":{"name":"get_weather"}}]}}`,
	"max_completion_tokens_n2": `,"max_completion_tokens":200,"n":2`,
}

// p54aMistralFields are the members of Mistral's chat completion request
// (mistralai/client-python src/mistralai/models/chatcompletionrequest.py,
// plus metadata and prompt_mode of later API versions). Mistral's API
// refuses any other top-level member with 422 extra_forbidden, in the body
// quoted in Gage-Technologies/mistral-go#2 and nomtek/mistralai_client_dart#44.
var p54aMistralFields = map[string]bool{"model": true, "messages": true, "temperature": true, "top_p": true,
	"max_tokens": true, "stream": true, "stop": true, "random_seed": true, "response_format": true, "tools": true,
	"tool_choice": true, "presence_penalty": true, "frequency_penalty": true, "n": true, "prediction": true,
	"parallel_tool_calls": true, "safe_prompt": true, "metadata": true, "prompt_mode": true}

func p54aMistral(_ int, r upstreamtest.Request) upstreamtest.Step {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(r.Body, &m)
	var details []string
	for k, v := range m {
		if !p54aMistralFields[k] {
			details = append(details, `{"type":"extra_forbidden","loc":["body","`+k+`"],"msg":"Extra inputs are not permitted","input":`+string(v)+`,"url":"https://errors.pydantic.dev/2.6/v/extra_forbidden"}`)
		}
	}
	if len(details) > 0 {
		return upstreamtest.Step{Status: 422, Body: `{"object":"error","message":{"detail":[` + strings.Join(details, ",") + `]},"type":"invalid_request_error","param":null,"code":null}`}
	}
	return ok("mistral-medium-latest", "Hello from Mistral.")
}

// p54aGroq refuses what Groq's docs say it refuses
// (https://console.groq.com/docs/openai: logprobs, logit_bias, top_logprobs
// "will result in a 400"; n: "only n=1 is supported"), and a property its
// schema lacks in the words of fanenr/chatbot#21 and
// CherryHQ/cherry-studio#1099 ("property 'store' is unsupported, did you
// mean 'stop'?"). The n refusal is dspy#1155's "n must be at most 1" in
// Groq's "'<field>' : <reason>" form (chatboxai/chatbox#2081, ChatALL#901).
func p54aGroq(_ int, r upstreamtest.Request) upstreamtest.Step {
	var m map[string]json.RawMessage
	_ = json.Unmarshal(r.Body, &m)
	if n, ok := m["n"]; ok && string(n) != "1" {
		return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"'n' : number must be at most 1","type":"invalid_request_error"}}`}
	}
	for _, k := range []string{"verbosity", "web_search_options", "modalities", "audio"} {
		if _, ok := m[k]; ok {
			return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"property '` + k + `' is unsupported","type":"invalid_request_error"}}`}
		}
	}
	return ok("llama-3.3-70b-versatile", "Hello from Groq.")
}

// p54aVLLM is vLLM's OpenAI-compatible server
// (vllm/entrypoints/openai/chat_completion/protocol.py, ChatCompletionRequest):
// unknown members are ignored with a logged warning (OpenAIBaseModel,
// extra="allow": "The following fields were present in the request but
// ignored"), tool types other than "function" and a tool_choice object
// without "function" are refused with 400 in the envelope quoted in
// camel-ai/camel#1585.
func p54aVLLM(_ int, r upstreamtest.Request) upstreamtest.Step {
	var m struct {
		Tools      []map[string]any `json:"tools"`
		ToolChoice json.RawMessage  `json:"tool_choice"`
	}
	_ = json.Unmarshal(r.Body, &m)
	for i, tl := range m.Tools {
		if tl["type"] != "function" {
			return upstreamtest.Step{Status: 400, Body: `{"object":"error","message":"[{'type': 'literal_error', 'loc': ('body', 'tools', ` + itoa(i) + `, 'type'), 'msg': \"Input should be 'function'\", 'input': 'custom', 'ctx': {'expected': \"'function'\"}}]","type":"BadRequestError","param":null,"code":400}`}
		}
	}
	var choice map[string]json.RawMessage
	if json.Unmarshal(m.ToolChoice, &choice) == nil && choice != nil && len(choice["function"]) == 0 {
		return upstreamtest.Step{Status: 400, Body: "{\"object\":\"error\",\"message\":\"[{'type': 'value_error', 'loc': ('body',), 'msg': 'Value error, Invalid value for `function`: `None` in `tool_choice`! Correct usage: `{\\\"type\\\": \\\"function\\\", \\\"function\\\": {\\\"name\\\": \\\"my_function\\\"}}`'}]\",\"type\":\"BadRequestError\",\"param\":null,\"code\":400}"}
	}
	return ok("Qwen/Qwen3-8B", "Hello from vLLM.")
}

// p54aNewParams is what an openai-go user writes for GPT-5: the newer
// members set through the SDK's own typed fields.
func p54aNewParams(model string) openai.ChatCompletionNewParams {
	return openai.ChatCompletionNewParams{
		Model:               model,
		Messages:            []openai.ChatCompletionMessageParamUnion{openai.DeveloperMessage("Be brief."), openai.UserMessage("hi")},
		Verbosity:           openai.ChatCompletionNewParamsVerbosityLow,
		SafetyIdentifier:    openai.String("user-7f3a"),
		PromptCacheKey:      openai.String("session-42"),
		MaxCompletionTokens: openai.Int(200),
	}
}

func p54aClient(g *gateway) openai.Client {
	return openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("test"), option.WithMaxRetries(0))
}

// Finding 1. An openai-go client sends GPT-5's verbosity, safety_identifier
// and prompt_cache_key (all members of the Chat Completions API the door
// serves) on a route [Mistral, GPT-5]. Mistral's API refuses each with 422
// extra_forbidden; the walk stops there (bad_request) and GPT-5, which takes
// them, is never asked. The same members at Groq ("property 'verbosity' is
// unsupported") are unknown and the route moves on; at a Claude or Gemini
// target they are not sent. FAILS now: 422 "Extra inputs are not permitted".
func TestP54aMistralRefusesOpenAIMembersRouteMovesOn(t *testing.T) {
	fs := p54aFakes(t, map[string]upstreamtest.Script{"mistral": p54aMistral})
	g := start(t, p54aCfg, fs)
	c := p54aClient(g)
	res, err := c.Chat.Completions.New(context.Background(), p54aNewParams("mistral-first"))
	d := g.recs.wait(t, 1)
	if err != nil {
		t.Fatalf("openai-go: %v\nattempts %q", err, steps(d))
	}
	if res.Choices[0].Message.Content != "Hello from OpenAI." {
		t.Errorf("answer %q, attempts %q", res.Choices[0].Message.Content, steps(d))
	}
}

// Finding 2. When the 422 does reach the client, it does not say which
// member Mistral refused: Mistral's body names it in detail[].loc
// (["body","verbosity"]), the gateway's envelope keeps only the msg
// ("Extra inputs are not permitted", param null). The client cannot tell
// which of its members to drop. FAILS now.
func TestP54aMistralRefusalNamesTheMember(t *testing.T) {
	fs := p54aFakes(t, map[string]upstreamtest.Script{"mistral": p54aMistral})
	g := start(t, p54aCfg+"  - {name: mistral-only, targets: [mis]}\n", fs)
	c := p54aClient(g)
	p := openai.ChatCompletionNewParams{Model: "mistral-only", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, Verbosity: openai.ChatCompletionNewParamsVerbosityLow}
	_, err := c.Chat.Completions.New(context.Background(), p)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("want an API error, got %v", err)
	}
	if !strings.Contains(apiErr.Message, "verbosity") && apiErr.Param != "verbosity" {
		t.Errorf("status %d, message %q, param %q: the refused member (verbosity) is named nowhere; upstream said loc [\"body\",\"verbosity\"]", apiErr.StatusCode, apiErr.Message, apiErr.Param)
	}
}

// Finding 3. A GPT-5 custom tool (type "custom", free-form input under a
// grammar) on a route [vLLM, GPT-5]: vLLM's ChatCompletionToolsParam takes
// type "function" only and answers a pydantic literal_error at
// ('body','tools',0,'type'). The walk stops (bad_request); at a Claude or
// Gemini target the same tool is `unknown`/translate and the route moves
// on, and behaviour.md reads a tool type a server's schema lacks (LM
// Studio's "Invalid discriminator value", xAI's "unknown variant") as the
// vendor's own gap. FAILS now: 400 literal_error.
func TestP54aVLLMCustomToolRouteMovesOn(t *testing.T) {
	fs := p54aFakes(t, map[string]upstreamtest.Script{"vllm": p54aVLLM})
	g := start(t, p54aCfg, fs)
	r := g.post(t, "vllm-first", p54aMembers["custom_tool"])
	d := g.recs.wait(t, 1)
	if r.Status != 200 || fs["openai"].Calls() != 1 {
		t.Errorf("status %d body %.300s\nattempts %q (GPT-5, which takes custom tools, was asked %d times)", r.Status, r.Body, steps(d), fs["openai"].Calls())
	}
}

// Finding 4. tool_choice {"type":"allowed_tools",…} on a route [vLLM,
// GPT-5]: vLLM's check_tool_usage refuses any tool_choice object without
// "function" ("Invalid value for `function`: `None` in `tool_choice`!").
// The walk stops; Claude and Gemini targets translate allowed_tools (round
// 48) and GPT-5 takes it. FAILS now: 400.
func TestP54aVLLMAllowedToolsRouteMovesOn(t *testing.T) {
	fs := p54aFakes(t, map[string]upstreamtest.Script{"vllm": p54aVLLM})
	g := start(t, p54aCfg, fs)
	r := g.post(t, "vllm-first", p54aMembers["allowed_tools"])
	d := g.recs.wait(t, 1)
	if r.Status != 200 || fs["openai"].Calls() != 1 {
		t.Errorf("status %d body %.300s\nattempts %q", r.Status, r.Body, steps(d))
	}
}

// Finding 5. n: 2 with max_completion_tokens on a route [Groq, GPT-5]:
// Groq documents "only n=1 is supported. Other values will result in a 400
// response" (console.groq.com/docs/api-reference#chat-create, quoted in
// stanfordnlp/dspy#1155). The walk stops (bad_request); at a Claude target
// n above 1 is `unknown`/translate and "the route moves on to a target that
// answers several" (docs/doors.md). FAILS now: 400.
func TestP54aGroqNAboveOneRouteMovesOn(t *testing.T) {
	fs := p54aFakes(t, map[string]upstreamtest.Script{"groq": p54aGroq})
	g := start(t, p54aCfg, fs)
	r := g.post(t, "groq-first", p54aMembers["max_completion_tokens_n2"])
	d := g.recs.wait(t, 1)
	if r.Status != 200 || fs["openai"].Calls() != 1 {
		t.Errorf("status %d body %.300s\nattempts %q", r.Status, r.Body, steps(d))
	}
}

// Finding 6. An openai-go client's max_completion_tokens (the SDK's field
// for the limit; max_tokens is deprecated) on a route [Claude, DeepSeek]:
// the Claude target gets it as max_tokens 200, the DeepSeek target gets
// max_completion_tokens, which DeepSeek ignores (docs/doors.md "The output
// limit's name", earendil-works/pi#8018), so after a failover the answer
// runs to DeepSeek's default length. FAILS now (documented: "A chat
// client's own body is sent as it wrote it").
func TestP54aDeepSeekGetsTheClientsOutputLimit(t *testing.T) {
	fs := p54aFakes(t, map[string]upstreamtest.Script{"anthropic": script(upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`})})
	g := start(t, p54aCfg+"  - {name: claude-deepseek, targets: [claude, ds]}\n", fs)
	c := p54aClient(g)
	p := openai.ChatCompletionNewParams{Model: "claude-deepseek", Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}, MaxCompletionTokens: openai.Int(200)}
	if _, err := c.Chat.Completions.New(context.Background(), p); err != nil {
		t.Fatal(err)
	}
	var claude, ds map[string]any
	_ = json.Unmarshal(lastRaw(t, fs["anthropic"]), &claude)
	_ = json.Unmarshal(lastRaw(t, fs["deepseek"]), &ds)
	if ds["max_tokens"] != float64(200) {
		t.Errorf("Claude was sent max_tokens %v; DeepSeek was sent max_tokens %v, max_completion_tokens %v (which DeepSeek ignores)", claude["max_tokens"], ds["max_tokens"], ds["max_completion_tokens"])
	}
}

// Passes: openai-go's typed newer members (developer message, verbosity,
// safety_identifier, prompt_cache_key, max_completion_tokens, strict
// json_schema) reach Claude and Gemini as docs/doors.md says, and the
// answer parses, whole and streamed.
func TestP54aOpenAIGoNewerMembersOnClaudeAndGemini(t *testing.T) {
	for _, rt := range []string{"claude-first", "gemini-first"} {
		t.Run(rt, func(t *testing.T) {
			fs := p54aFakes(t, nil)
			g := start(t, p54aCfg, fs)
			c := p54aClient(g)
			res, err := c.Chat.Completions.New(context.Background(), p54aNewParams(rt))
			if err != nil || len(res.Choices) != 1 || !strings.HasPrefix(res.Choices[0].Message.Content, "Hello from") {
				t.Fatalf("%v %+v", err, res)
			}
			if fs["openai"].Calls() != 0 {
				t.Errorf("the first target did not answer")
			}
		})
	}
}

// Finding 2 through the JS openai SDK: err.message and err.param.
const p54aJSRefusal = `
import OpenAI from 'openai';
const c = new OpenAI({ baseURL: process.env.P53C_BASE + '/v1', apiKey: 'k', maxRetries: 0 });
try {
  await c.chat.completions.create({ model: 'mistral-only', messages: [{ role: 'developer', content: 'Be brief.' }, { role: 'user', content: 'hi' }], verbosity: 'low' });
  console.log(JSON.stringify({ ok: true }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, status: e?.status, message: e?.message, param: e?.param ?? null }));
}
`

func TestP54aMistralRefusalNamesTheMemberJS(t *testing.T) {
	fs := p54aFakes(t, map[string]upstreamtest.Script{"mistral": p54aMistral})
	g := start(t, p54aCfg+"  - {name: mistral-only, targets: [mis]}\n", fs)
	out := p53cNode(t, g.URL, p54aJSRefusal)
	if !strings.Contains(out, "verbosity") {
		t.Errorf("the JS SDK's error names no member: %s", out)
	}
}
