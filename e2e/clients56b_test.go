package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Probe 56b: JavaScript agent frameworks (OpenAI Agents SDK, LlamaIndex TS,
// Mastra, LangGraph JS) in multi-step tool loops (parallel calls) through
// Detour onto Anthropic, Gemini and DeepSeek-style targets, with a
// failover in the middle.

const p56bCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{claude}", api_key: ` + secret + `}
  - {name: anthropic-down, dialect: anthropic, base_url: "{claude2}", api_key: ` + secret + `}
  - {name: gemini-a, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
  - {name: gemini-down, dialect: gemini, base_url: "{gem2}", api_key: ` + secret + `}
  - {name: deepseek, dialect: openai, base_url: "{ds}/v1", api_key: ` + secret + `}
  - {name: deepseek-down, dialect: openai, base_url: "{ds2}/v1", api_key: ` + secret + `}
  - {name: dead, dialect: openai, base_url: "{dead}/v1", api_key: ` + secret + `}
  - {name: bad, dialect: openai, base_url: "{bad}/v1", api_key: ` + secret + `}
  - {name: ctx, dialect: openai, base_url: "{ctx}/v1", api_key: ` + secret + `}
  - {name: cutp, dialect: openai, base_url: "{cut}/v1", api_key: ` + secret + `}
  - {name: dead2, dialect: anthropic, base_url: "{dead2}", api_key: ` + secret + `}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: sonnet-down, model: claude-sonnet-4-5, providers: [anthropic-down]}
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a]}
  - {name: g3-down, model: gemini-3-pro-preview, providers: [gemini-down]}
  - {name: dsr, model: deepseek-reasoner, providers: [deepseek]}
  - {name: dsr-down, model: deepseek-reasoner, providers: [deepseek-down]}
  - {name: dead429, model: gpt-4o, providers: [dead]}
  - {name: bad400, model: gpt-4o, providers: [bad]}
  - {name: ctx400, model: deepseek-chat, providers: [ctx]}
  - {name: dscut, model: deepseek-reasoner, providers: [cutp]}
  - {name: dead429b, model: claude-sonnet-4-5, providers: [dead2]}
routes:
  - {name: claude, targets: [sonnet]}
  - {name: gem3, targets: [g3]}
  - {name: ds, targets: [dsr]}
  - {name: claude-then-gem, targets: [sonnet-down, g3]}
  - {name: gem-then-ds, targets: [g3-down, dsr]}
  - {name: ds-then-claude, targets: [dsr-down, sonnet]}
  - {name: claude-then-ds, targets: [sonnet-down, dsr]}
  - {name: spent, targets: [dead429]}
  - {name: bad, targets: [bad400]}
  - {name: ctx, targets: [ctx400]}
  - {name: cut, targets: [dscut]}
  - {name: cut-then-claude, targets: [dscut, sonnet]}
  - {name: spent2, targets: [dead429b, dead429]}
  - {name: gem-then-claude, targets: [g3-down, sonnet]}
  - {name: ds-then-gem, targets: [dsr-down, g3]}
`

// p56bResults counts the tool results in a request body (any dialect).
func p56bResults(body string) int {
	return strings.Count(body, `"tool_result"`) + strings.Count(body, `"functionResponse"`) + strings.Count(body, `"role":"tool"`)
}

// p56bCalls: the request offers get_weather and has not called it yet.
func p56bCalls(body string) bool {
	return strings.Count(body, `"name":"get_weather"`) == 1
}

// p56bTransfer is the handoff tool (the Agents SDK's transfer_to_<agent>)
// the request offers and has not called yet.
func p56bTransfer(body string) string {
	const name = "transfer_to_Weather"
	if strings.Count(body, `"name":"`+name+`"`) == 1 && p56bResults(body) == 0 {
		return name
	}
	return ""
}

// p56bClaude is Anthropic Messages (streamed per the Messages streaming
// docs, or whole): a signed thinking block and two parallel get_weather
// calls (Paris, London) while the history has no tool result, then text.
func p56bClaude(down func(int) bool) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if down != nil && down(n) {
			return upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}
		}
		if msg := p55bClaudeRefuse(r.Body); msg != "" {
			return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"` + msg + `"}}`}
		}
		body := string(r.Body)
		calls := p56bCalls(body)
		id := fmt.Sprintf("msg_01p56b%d", n)
		if transfer := p56bTransfer(body); transfer != "" && !r.Streamed() {
			return upstreamtest.Step{Body: `{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"thinking","thinking":"Hand off.","signature":"` + p55bClaudeSig + `"},{"type":"tool_use","id":"toolu_01p56bt` + fmt.Sprint(n) + `","name":"` + transfer + `","input":{}}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":30}}`}
		} else if transfer != "" {
			return upstreamtest.Step{Events: []string{
				`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":1}}}`,
				`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_01p56bt` + fmt.Sprint(n) + `","name":"` + transfer + `","input":{}}}`,
				`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{}"}}`,
				`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
				`event: message_delta` + "\n" + `data: {"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":30}}`,
				`event: message_stop` + "\n" + `data: {"type":"message_stop"}`}}
		}
		if !r.Streamed() {
			content := `{"type":"thinking","thinking":"Let me look.","signature":"` + p55bClaudeSig + `"}`
			stop := "end_turn"
			if calls {
				stop = "tool_use"
				content += fmt.Sprintf(`,{"type":"tool_use","id":"toolu_01p56b%da","name":"get_weather","input":{"city":"Paris"}},{"type":"tool_use","id":"toolu_01p56b%db","name":"get_weather","input":{"city":"London"}}`, n, n)
			} else {
				content += `,{"type":"text","text":"Paris is sunny and London is rainy."}`
			}
			return upstreamtest.Step{Body: `{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` + content + `],"stop_reason":"` + stop + `","stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":30}}`}
		}
		ev := []string{
			`event: message_start` + "\n" + `data: {"type":"message_start","message":{"id":"` + id + `","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":1}}}`,
			`event: content_block_start` + "\n" + `data: {"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`,
			`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me look."}}`,
			`event: content_block_delta` + "\n" + `data: {"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"` + p55bClaudeSig + `"}}`,
			`event: content_block_stop` + "\n" + `data: {"type":"content_block_stop","index":0}`,
		}
		stop := "end_turn"
		if calls {
			stop = "tool_use"
			for i, city := range []string{"Paris", "London"} {
				ev = append(ev,
					`event: content_block_start`+"\n"+fmt.Sprintf(`data: {"type":"content_block_start","index":%d,"content_block":{"type":"tool_use","id":"toolu_01p56b%d%c","name":"get_weather","input":{}}}`, i+1, n, 'a'+i),
					`event: content_block_delta`+"\n"+fmt.Sprintf(`data: {"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"{\"city\": "}}`, i+1),
					`event: content_block_delta`+"\n"+fmt.Sprintf(`data: {"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":"\"%s\"}"}}`, i+1, city),
					`event: content_block_stop`+"\n"+fmt.Sprintf(`data: {"type":"content_block_stop","index":%d}`, i+1))
			}
		} else {
			ev = append(ev,
				`event: content_block_start`+"\n"+`data: {"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`,
				`event: content_block_delta`+"\n"+`data: {"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"Paris is sunny and London is rainy."}}`,
				`event: content_block_stop`+"\n"+`data: {"type":"content_block_stop","index":1}`)
		}
		ev = append(ev,
			`event: message_delta`+"\n"+`data: {"type":"message_delta","delta":{"stop_reason":"`+stop+`","stop_sequence":null},"usage":{"output_tokens":30}}`,
			`event: message_stop`+"\n"+`data: {"type":"message_stop"}`)
		return upstreamtest.Step{Events: ev}
	}
}

// p56bDeepSeek is DeepSeek's chat completions in thinking mode
// (deepseek-reasoner): reasoning_content, then two parallel get_weather
// calls while the history has no tool result, then text; it refuses an
// assistant tool-call turn without reasoning_content
// (https://api-docs.deepseek.com/guides/thinking_mode#tool-calls).
func p56bDeepSeek(down func(int) bool) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if down != nil && down(n) {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"Server overloaded, please try again later.","type":"service_unavailable_error","param":null,"code":"service_unavailable"}}`}
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
		body := string(r.Body)
		calls := p56bCalls(body)
		id := fmt.Sprintf("p56b-ds-%d", n)
		if transfer := p56bTransfer(body); transfer != "" {
			msg := `{"role":"assistant","content":"","reasoning_content":"Hand off to the weather agent.","tool_calls":[{"index":0,"id":"call_00_p56bt` + fmt.Sprint(n) + `","type":"function","function":{"name":"` + transfer + `","arguments":"{}"}}]}`
			if !r.Streamed() {
				return upstreamtest.Step{Body: `{"id":"` + id + `","object":"chat.completion","created":1765000000,"model":"deepseek-reasoner","choices":[{"index":0,"message":` + msg + `,"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80}}`}
			}
			head := `{"id":"` + id + `","object":"chat.completion.chunk","created":1765000000,"model":"deepseek-reasoner","choices":[`
			return upstreamtest.Step{Events: []string{
				head + `{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":"Hand off to the weather agent."},"finish_reason":null}]}`,
				head + `{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_00_p56bt` + fmt.Sprint(n) + `","type":"function","function":{"name":"` + transfer + `","arguments":"{}"}}]},"finish_reason":null}]}`,
				head + `{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80}}`, "[DONE]"}}
		}
		usage := `"usage":{"prompt_tokens":60,"completion_tokens":20,"total_tokens":80,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":8},"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":60}`
		if !r.Streamed() {
			msg := `{"role":"assistant","content":"Paris is sunny and London is rainy.","reasoning_content":"Let me check the weather."}`
			fin := "stop"
			if calls {
				fin = "tool_calls"
				msg = fmt.Sprintf(`{"role":"assistant","content":"","reasoning_content":"Let me check the weather.","tool_calls":[{"index":0,"id":"call_00_p56b%da","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},{"index":1,"id":"call_01_p56b%db","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"London\"}"}}]}`, n, n)
			}
			return upstreamtest.Step{Body: `{"id":"` + id + `","object":"chat.completion","created":1765000000,"model":"deepseek-reasoner","choices":[{"index":0,"message":` + msg + `,"logprobs":null,"finish_reason":"` + fin + `"}],` + usage + `,"system_fingerprint":"fp_p56b"}`}
		}
		head := `{"id":"` + id + `","object":"chat.completion.chunk","created":1765000000,"model":"deepseek-reasoner","system_fingerprint":"fp_p56b","choices":[`
		ev := []string{
			head + `{"index":0,"delta":{"role":"assistant","content":null,"reasoning_content":""},"logprobs":null,"finish_reason":null}]}`,
			head + `{"index":0,"delta":{"reasoning_content":"Let me check the weather."},"logprobs":null,"finish_reason":null}]}`,
		}
		fin := "stop"
		if calls {
			fin = "tool_calls"
			for i, city := range []string{"Paris", "London"} {
				ev = append(ev,
					head+fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"id":"call_0%d_p56b%d","type":"function","function":{"name":"get_weather","arguments":""}}]},"logprobs":null,"finish_reason":null}]}`, i, i, n),
					head+fmt.Sprintf(`{"index":0,"delta":{"tool_calls":[{"index":%d,"function":{"arguments":"{\"city\": \"%s\"}"}}]},"logprobs":null,"finish_reason":null}]}`, i, city))
			}
		} else {
			ev = append(ev, head+`{"index":0,"delta":{"content":"Paris is sunny and London is rainy."},"logprobs":null,"finish_reason":null}]}`)
		}
		ev = append(ev, head+`{"index":0,"delta":{"content":""},"logprobs":null,"finish_reason":"`+fin+`"}],`+usage+`}`, "[DONE]")
		return upstreamtest.Step{Events: ev}
	}
}

// p56bRateLimited is OpenAI's 429 with Retry-After (corpus
// openai-rate-limit-reached-tpm-429).
func p56bRateLimited(t *testing.T) upstreamtest.Script {
	s := corpus(t, "openai-rate-limit-reached-tpm-429")
	if s.Header == nil {
		s.Header = map[string]string{}
	}
	s.Header["Retry-After"] = "7"
	return upstreamtest.Steps(s)
}

// p56bClaudeRateLimited is Anthropic's 429 (corpus
// anthropic-rate-limit-input-tokens-per-minute) with retry-after 30.
func p56bClaudeRateLimited(t *testing.T) upstreamtest.Script {
	s := corpus(t, "anthropic-rate-limit-input-tokens-per-minute")
	if s.Header == nil {
		s.Header = map[string]string{}
	}
	s.Header["Retry-After"] = "30"
	return upstreamtest.Steps(s)
}

// p56bScripts are the fakes of p56bCfg.
func p56bScripts(t *testing.T) map[string]upstreamtest.Script {
	after1 := func(n int) bool { return n >= 2 }
	return map[string]upstreamtest.Script{
		"claude":  p56bClaude(nil),
		"claude2": p56bClaude(after1),
		"gem":     p54Gemini("a", true, false),
		"gem2":    p54Gemini("a", true, true),
		"ds":      p56bDeepSeek(nil),
		"ds2":     p56bDeepSeek(after1),
		"dead":    p56bRateLimited(t),
		"bad":     upstreamtest.Steps(corpus(t, "openai-400-invalid-function-parameters-additionalproperties-context-type-0")),
		"ctx":     upstreamtest.Steps(corpus(t, "deepseek-context-length-64k")),
		"dead2":   p56bClaudeRateLimited(t),
		"cut": func(n int, r upstreamtest.Request) upstreamtest.Step {
			st := p56bDeepSeek(nil)(n, r)
			if len(st.Events) > 3 {
				st.Events, st.Cut = st.Events[:3], true
			}
			return st
		},
	}
}

// TestClients56bResponsesCutStreamErrorIsNested: the upstream (DeepSeek) cuts
// its stream after the first tool call's header; the Responses door ends
// the stream with a flat `error` event {type, code, message, param} and
// `response.failed`. openai-go (v3.102, packages/ssestream: it stops only
// when the event's data has an `error` member), openai-node 6.x
// (core/streaming.js: `if (data && data.error) throw`) and openai-python
// (_streaming.py) raise only on a nested `error` object, which is what the
// live OpenAI API sends (openai/openai-dotnet#881: `{"type":"error",
// "sequence_number":2,"error":{"type":"too_many_requests","code":…,
// "message":…,"param":null}}`; stdapi-ai/stdapi.ai#294 made its gateway
// send it nested for this reason). So the stream ends with no error, and
// LangChain JS (@langchain/openai 1.5.8 on openai 6.49.0, the pair npm
// installs; it ignores `error` and `response.failed` events) took a cut
// answer as complete and ran its truncated tool call (probe 56b, LangGraph
// createReactAgent, useResponsesApi, streaming).
func TestClients56bResponsesCutStreamErrorIsNested(t *testing.T) {
	fs := fakes(t, p56bScripts(t))
	g := start(t, p56bCfg, fs)
	st := sdk(g).Responses.NewStreaming(context.Background(), responses.ResponseNewParams{Model: "cut",
		Input: responses.ResponseNewParamsInputUnion{OfString: openai.String("Weather in Paris and London?")},
		Tools: []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather",
			Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}})
	var types []string
	for st.Next() {
		types = append(types, st.Current().Type)
	}
	if st.Err() == nil {
		t.Errorf("openai-go read the cut stream to its end without an error; events: %v", types)
	}
}
