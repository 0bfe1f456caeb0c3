package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 50, helper c50b: the Anthropic Messages door (/v1/messages and
// /v1/messages/count_tokens) as Anthropic-API clients send it today, on
// routes whose targets are OpenAI (Chat Completions) or Gemini, whole and
// streamed. Every member below is one Anthropic's Messages API reference
// documents and anthropic-sdk-go v2.17.0 (go.mod) declares
// (MessageNewParams, ToolUnionParam, ThinkingConfigParamUnion,
// CacheControlEphemeralParam{TTL}, SearchResultBlockParam, …); the upstream
// answers are the vendors' own recorded streams cited at each fake.

var c50bHeaders = []string{
	"x-api-key", "client-key",
	"anthropic-version", "2023-06-01",
	"anthropic-beta", "interleaved-thinking-2025-05-14,extended-cache-ttl-2025-04-11,structured-outputs-2025-11-13",
}

// c50bEvent is one SSE event of a Messages stream.
type c50bEvent struct {
	name string
	data string
}

func c50bEvents(t *testing.T, body []byte) []c50bEvent {
	t.Helper()
	var out []c50bEvent
	for _, blk := range strings.Split(strings.ReplaceAll(string(body), "\r\n", "\n"), "\n\n") {
		var ev c50bEvent
		for _, l := range strings.Split(blk, "\n") {
			switch {
			case strings.HasPrefix(l, "event:"):
				ev.name = strings.TrimSpace(strings.TrimPrefix(l, "event:"))
			case strings.HasPrefix(l, "data:"):
				ev.data += strings.TrimSpace(strings.TrimPrefix(l, "data:"))
			}
		}
		if ev.name != "" || ev.data != "" {
			out = append(out, ev)
		}
	}
	return out
}

// c50bReadStream checks the event grammar a client's accumulator relies on
// (Anthropic's streaming guide: message_start; per block
// content_block_start, deltas, content_block_stop; message_delta;
// message_stop) and accumulates it with anthropic-sdk-go's
// Message.Accumulate, as the SDK's users do.
func c50bReadStream(t *testing.T, body []byte) anthropic.Message {
	t.Helper()
	evs := c50bEvents(t, body)
	if len(evs) == 0 {
		t.Fatalf("no events: %s", body)
	}
	var msg anthropic.Message
	open := map[int64]bool{}
	started := map[int64]bool{}
	sawDelta := false
	for i, ev := range evs {
		if ev.name == "ping" {
			continue
		}
		var u anthropic.MessageStreamEventUnion
		if err := json.Unmarshal([]byte(ev.data), &u); err != nil {
			t.Fatalf("event %d %q: %v (%s)", i, ev.name, err, ev.data)
		}
		if u.Type != ev.name {
			t.Errorf("event %d: event name %q, data type %q", i, ev.name, u.Type)
		}
		switch {
		case i == 0 && u.Type != "message_start":
			t.Fatalf("first event %q, want message_start: %s", u.Type, body)
		case u.Type == "error":
			t.Fatalf("error event: %s", ev.data)
		case u.Type == "content_block_start":
			if sawDelta {
				t.Errorf("content_block_start after message_delta")
			}
			open[u.Index], started[u.Index] = true, true
		case u.Type == "content_block_delta":
			if !started[u.Index] {
				t.Errorf("delta for block %d never started", u.Index)
			}
		case u.Type == "content_block_stop":
			if !open[u.Index] {
				t.Errorf("stop for block %d not open", u.Index)
			}
			open[u.Index] = false
		case u.Type == "message_delta":
			sawDelta = true
			for k, o := range open {
				if o {
					t.Errorf("message_delta with block %d still open", k)
				}
			}
		case u.Type == "message_stop":
			if i != len(evs)-1 {
				t.Errorf("message_stop is not the last event")
			}
		}
		if err := msg.Accumulate(u); err != nil {
			t.Fatalf("Accumulate(%s): %v", ev.data, err)
		}
	}
	if last := evs[len(evs)-1]; last.name != "message_stop" {
		t.Errorf("last event %q, want message_stop", last.name)
	}
	return msg
}

func c50bTypes(m anthropic.Message) []string {
	var out []string
	for _, c := range m.Content {
		out = append(out, c.Type)
	}
	return out
}

// c50bDeepSeekStream is an OpenAI-compatible reasoning stream: the
// reasoning in delta.reasoning_content, then content, then a tool call, as
// DeepSeek's reasoning-model guide streams it
// (https://api-docs.deepseek.com/guides/reasoning_model: "reasoning_content"
// beside "content" in each chunk's delta) and OpenAI's function-calling guide
// streams a call (accumulate_test.go's openAIToolStream fragments).
func c50bDeepSeekStream() []string {
	env := func(delta, finish string) string {
		return `{"id":"chatcmpl-c50b","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	out := []string{
		env(`{"role":"assistant","content":null,"reasoning_content":""}`, "null"),
		env(`{"content":null,"reasoning_content":"The user wants Paris weather; "}`, "null"),
		env(`{"content":null,"reasoning_content":"call get_weather."}`, "null"),
		env(`{"content":"Let me check.","reasoning_content":null}`, "null"),
		env(`{"tool_calls":[{"index":0,"id":"call_00_c50b","type":"function","function":{"name":"get_weather","arguments":""}}]}`, "null"),
		env(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"location\":"}}]}`, "null"),
		env(`{"tool_calls":[{"index":0,"function":{"arguments":"\"Paris, France\"}"}}]}`, "null"),
		env(`{}`, `"tool_calls"`),
		`{"id":"chatcmpl-c50b","object":"chat.completion.chunk","created":1,"model":"deepseek-reasoner","choices":[],"usage":{"prompt_tokens":120,"completion_tokens":30,"total_tokens":150,"prompt_tokens_details":{"cached_tokens":100},"completion_tokens_details":{"reasoning_tokens":12}}}`,
		"[DONE]",
	}
	return out
}

// c50bFakes answer every streamed call with reasoning, text and a tool
// call in each vendor's stream: the OpenAI-compatible reasoning stream
// above, Gemini's recorded thought-summary + function-call stream
// (FirebaseExtended/vertexai-sdk-test-data,
// streaming-success-thinking-function-call-thought-summary-signature.txt), and
// anthropic-sdk-python's recorded tool_use stream; a whole call gets text.
func c50bFakes(t *testing.T) map[string]*upstreamtest.Server {
	gem := sseBlocks(string(testdata(t, "gemini", "stream/function_call_thinking.sse")))
	claude := sseBlocks(string(testdata(t, "anthropic", "stream/tool_use.sse")))
	pick := func(dialect string, whole string, events []string) upstreamtest.Script {
		return func(n int, r upstreamtest.Request) upstreamtest.Step {
			step := upstreamtest.Step{Body: whole}
			if r.Streamed() || strings.Contains(r.Path, "stream") {
				step = upstreamtest.Step{Events: events}
			}
			return r40gStrict(dialect, step)(n, r)
		}
	}
	return fakes(t, map[string]upstreamtest.Script{
		"openai":    pick("openai", upstreamtest.ChatJSON("gpt-4o-mini", "hello there"), c50bDeepSeekStream()),
		"anthropic": pick("anthropic", anthropicMessage("claude-sonnet-4-5", "hello there"), claude),
		"gemini":    pick("gemini", geminiText("hello there"), gem),
	})
}

// An extended-thinking tool loop as an SDK user (and Zed, Goose, Claude
// Code) sends it: thinking enabled with budget_tokens, the earlier turn's
// signed thinking and redacted_thinking handed back, interleaved thinking
// between two tool rounds, cache_control (ttl 1h) on system blocks, a tool,
// a tool_use, a tool_result, an image and the last user text, tool_choice
// auto with disable_parallel_tool_use, top_k, stop_sequences,
// metadata.user_id, service_tier, context_management; streamed. Each
// target's stream must read through anthropic-sdk-go's accumulator in
// order, with the thinking, text and tool_use blocks and stop_reason
// tool_use; OpenAI and Gemini get no Anthropic-only marks.
func TestC50bThinkingToolLoopStream(t *testing.T) {
	fs := c50bFakes(t)
	g := start(t, clientsCfg, fs)
	const img = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
	body := `{"model":"%s","max_tokens":8192,"stream":true,
"thinking":{"type":"enabled","budget_tokens":4096},
"system":[{"type":"text","text":"You are a weather assistant."},{"type":"text","text":"Answer briefly.","cache_control":{"type":"ephemeral","ttl":"1h"}}],
"tools":[{"name":"get_weather","description":"Get the weather for a location","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]},"cache_control":{"type":"ephemeral","ttl":"1h"}}],
"tool_choice":{"type":"auto","disable_parallel_tool_use":true},
"top_k":40,"stop_sequences":["</answer>"],"metadata":{"user_id":"5f1e2d3c-0a9b-4c8d-9e7f-6a5b4c3d2e1f"},
"service_tier":"auto","context_management":{"edits":[{"type":"clear_thinking_20251015","keep":{"type":"thinking_turns","value":1}}]},
"messages":[
{"role":"user","content":[{"type":"text","text":"What's the weather in Paris and in Tokyo?"},{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + img + `"},"cache_control":{"type":"ephemeral"}}]},
{"role":"assistant","content":[{"type":"thinking","thinking":"I should call get_weather for Paris first.","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"},{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpPkNRj2YfWXGmKDxH4mPnZ5sQ7vB5URj"},{"type":"tool_use","id":"toolu_01A09q90qw90lq917835lq9","name":"get_weather","input":{"location":"Paris, France"},"cache_control":{"type":"ephemeral"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01A09q90qw90lq917835lq9","content":[{"type":"text","text":"15 degrees, cloudy"}],"cache_control":{"type":"ephemeral"}}]},
{"role":"assistant","content":[{"type":"thinking","thinking":"Paris done; now Tokyo.","signature":"EuYBCkQYAiJAHDDaYfaWy5Wxq5dIUgNW9YPXUEP6cN7X1d8rVIE4eUpqsm4Mj3L1d6KQm7mIHvjX6dX3lk0J4lEq2nzmW"},{"type":"tool_use","id":"toolu_01B8s5t8x7w6v5u4t3s2r1q0","name":"get_weather","input":{"location":"Tokyo, Japan"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01B8s5t8x7w6v5u4t3s2r1q0","content":"22 degrees, sunny","is_error":false},{"type":"text","text":"And Paris again, please.","cache_control":{"type":"ephemeral","ttl":"1h"}}]}]}`
	for _, rt := range r40gRoutes {
		t.Run(rt.route, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/messages?beta=true", fmt.Sprintf(body, rt.route), c50bHeaders...)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			m := c50bReadStream(t, r.Body)
			if m.StopReason != "tool_use" {
				t.Errorf("stop_reason %q, want tool_use", m.StopReason)
			}
			types := c50bTypes(m)
			last := m.Content[len(m.Content)-1]
			if last.Type != "tool_use" || last.Name == "" || last.ID == "" {
				t.Fatalf("last block %+v (types %v)", last, types)
			}
			var in map[string]any
			if err := json.Unmarshal(last.Input, &in); err != nil || rt.upstream != "gemini" && in["location"] == nil {
				t.Errorf("tool input %s: %v", last.Input, err)
			}
			if m.Usage.OutputTokens == 0 {
				t.Errorf("usage %+v: no output tokens", m.Usage)
			}
			up := string(lastRaw(t, fs[rt.upstream]))
			switch rt.upstream {
			case "openai":
				if strings.Join(types, ",") != "thinking,text,tool_use" {
					t.Errorf("blocks %v, want thinking,text,tool_use", types)
				}
				if m.Content[0].Thinking != "The user wants Paris weather; call get_weather." {
					t.Errorf("thinking %q", m.Content[0].Thinking)
				}
				if m.Usage.InputTokens != 20 || m.Usage.CacheReadInputTokens != 100 || m.Usage.OutputTokens != 30 {
					t.Errorf("usage %+v, want input 20, cache read 100, output 30", m.Usage)
				}
				for _, s := range []string{`"parallel_tool_calls":false`, `"stop":["\u003c/answer\u003e"]`, `"user":"5f1e2d3c`, `"include_usage":true`} {
					if !strings.Contains(strings.ReplaceAll(up, `"stop":["</answer>"]`, `"stop":["\u003c/answer\u003e"]`), s) {
						t.Errorf("OpenAI body lacks %s: %s", s, up)
					}
				}
			case "gemini":
				// Gemini's thought parts are not passed on (Detour does not
				// ask for them: includeThoughts is not sent), so only the
				// call shows; logged.
				t.Logf("gemini blocks %v", types)
				// usageMetadata: promptTokenCount 38, candidatesTokenCount 6,
				// thoughtsTokenCount 168 (billed as output, as Anthropic
				// counts thinking in output_tokens).
				if m.Usage.InputTokens != 38 || m.Usage.OutputTokens != 174 {
					t.Errorf("usage %+v, want input 38, output 174", m.Usage)
				}
			case "anthropic":
				if !strings.Contains(up, `"ttl":"1h"`) || !strings.Contains(up, `"redacted_thinking"`) {
					t.Errorf("Claude did not get the body as sent: %.300s", up)
				}
			}
			if rt.upstream != "anthropic" {
				for _, s := range []string{"cache_control", `"signature"`, "redacted", "budget_tokens", "top_k", "context_management", "service_tier", "EmwKAhgB"} {
					if strings.Contains(up, s) {
						t.Errorf("%s body holds %q: %s", rt.upstream, s, up)
					}
				}
			}
		})
	}
}

// Adaptive thinking (Claude Opus 4.6+: `thinking: {type: "adaptive"}` with
// `output_config.effort`), as the Claude Agent SDK and Claude Code send it,
// whole (not streamed): every translated answer is a Message that
// anthropic-sdk-go reads.
func TestC50bAdaptiveThinkingWhole(t *testing.T) {
	fs := c50bFakes(t)
	g := start(t, clientsCfg, fs)
	const body = `{"model":"%s","max_tokens":4096,"thinking":{"type":"adaptive"},"output_config":{"effort":"high"},
"system":"You are terse.","messages":[{"role":"user","content":[{"type":"text","text":"Say hello."}]}]}`
	for _, rt := range r40gRoutes {
		t.Run(rt.route, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/messages", fmt.Sprintf(body, rt.route), c50bHeaders...)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			var m anthropic.Message
			if err := json.Unmarshal(r.Body, &m); err != nil {
				t.Fatal(err)
			}
			if claudeText(&m) != "hello there" || m.StopReason != "end_turn" {
				t.Errorf("message %s", r.Body)
			}
		})
	}
}

// search_result blocks (Anthropic's search-results guide; anthropic-sdk-go
// v2.17.0 SearchResultBlockParam{Source, Title, Content []TextBlockParam,
// Citations}; @langchain/anthropic passes them through,
// `_isAnthropicSearchResultBlock`): a RAG application puts its retrieved
// passages in a user turn, or a RAG tool returns them in its tool_result.
// With citations not enabled, a search result is only its text with a
// title and a source, which OpenAI and Gemini can read as text (the same
// way the door already sends a plain-text document, review 48c).
func TestC50bSearchResultWithoutCitations(t *testing.T) {
	fs := c50bFakes(t)
	g := start(t, clientsCfg, fs)
	cases := map[string]string{
		"user-turn": `{"model":"%s","max_tokens":1024,"messages":[{"role":"user","content":[
{"type":"search_result","source":"https://docs.company.com/api-reference","title":"API Reference - Authentication","content":[{"type":"text","text":"All API requests must include an API key in the Authorization header."}]},
{"type":"text","text":"How do I authenticate API requests?"}]}]}`,
		"tool-result": `{"model":"%s","max_tokens":1024,"tools":[{"name":"search_knowledge_base","description":"Search the company knowledge base","input_schema":{"type":"object","properties":{"query":{"type":"string"}},"required":["query"]}}],
"messages":[{"role":"user","content":[{"type":"text","text":"How do I authenticate API requests?"}]},
{"role":"assistant","content":[{"type":"tool_use","id":"toolu_01SR","name":"search_knowledge_base","input":{"query":"API authentication"}}]},
{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01SR","content":[{"type":"search_result","source":"https://docs.company.com/api-reference","title":"API Reference - Authentication","content":[{"type":"text","text":"All API requests must include an API key in the Authorization header."}]}]}]}]}`,
	}
	for name, body := range cases {
		for _, rt := range r40gRoutes {
			t.Run(name+"/"+rt.route, func(t *testing.T) {
				r := g.raw(t, http.MethodPost, "/v1/messages", fmt.Sprintf(body, rt.route), c50bHeaders...)
				if r.Status != 200 {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				if up := string(lastRaw(t, fs[rt.upstream])); !strings.Contains(up, "API key in the Authorization header") {
					t.Errorf("the passage did not reach %s: %.400s", rt.upstream, up)
				}
			})
		}
	}
}

// Anthropic-defined client tools (bash_20250124, text_editor_20250728,
// memory_20250818): the client runs them, Anthropic documents their input
// (bash: command, restart; text editor: command, path, file_text, old_str,
// new_str, insert_line, view_range). Logged, not asserted: the door refuses
// them as server tools (docs/doors.md), a feature gap (see REPORT.md Minor).
func TestC50bAnthropicClientToolsLogged(t *testing.T) {
	fs := c50bFakes(t)
	g := start(t, clientsCfg, fs)
	const body = `{"model":"%s","max_tokens":1024,"tools":[{"type":"bash_20250124","name":"bash"},{"type":"text_editor_20250728","name":"str_replace_based_edit_tool"}],"messages":[{"role":"user","content":[{"type":"text","text":"List the files."}]}]}`
	for _, rt := range r40gRoutes {
		r := g.raw(t, http.MethodPost, "/v1/messages", fmt.Sprintf(body, rt.route), c50bHeaders...)
		t.Logf("%s: %d %.200s", rt.route, r.Status, r.Body)
	}
}

// count_tokens as Claude Code (`?beta=true`) and the SDKs'
// `messages.countTokens` send it with today's members: adaptive thinking,
// output_config, output_format, context_management, cache_control with ttl
// on system and tools, a tool with defer_loading, an image by URL, a
// search_result. A route without Claude answers an estimate (docs/doors.md),
// never a refusal.
func TestC50bCountTokensTodaysMembers(t *testing.T) {
	fs := c50bFakes(t)
	g := start(t, clientsCfg, fs)
	const body = `{"model":"%s","thinking":{"type":"adaptive"},"output_config":{"effort":"medium"},
"context_management":{"edits":[{"type":"clear_tool_uses_20250919"}]},
"system":[{"type":"text","text":"You are a helpful assistant.","cache_control":{"type":"ephemeral","ttl":"1h"}}],
"tools":[{"name":"get_weather","description":"Get the weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}},"defer_loading":true,"cache_control":{"type":"ephemeral"}}],
"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"}},
{"type":"search_result","source":"https://docs.company.com","title":"Doc","content":[{"type":"text","text":"Passage."}]},
{"type":"text","text":"Describe this image."}]}]}`
	for _, rt := range r40gRoutes {
		if rt.upstream == "anthropic" {
			continue // exact count at Anthropic: another fake answer
		}
		t.Run(rt.route, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/messages/count_tokens?beta=true", fmt.Sprintf(body, rt.route), c50bHeaders...)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			var c struct {
				InputTokens int `json:"input_tokens"`
			}
			if json.Unmarshal(r.Body, &c) != nil || c.InputTokens <= 0 {
				t.Errorf("count %s", r.Body)
			}
		})
	}
}

// An image by URL (Anthropic's vision guide's example URL) and the
// structured-outputs beta (`output_format` json_schema), streamed: OpenAI
// gets the URL as image_url and a response_format, Gemini a fileData with
// the URL; both answer through the accumulator.
func TestC50bImageURLStructuredStream(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    r40gStrict("openai", upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o-mini", `{"answer":`, `"an ant"}`)}),
		"anthropic": r40gStrict("anthropic", upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", `{"answer":`, `"an ant"}`)}),
		"gemini":    r40gStrict("gemini", upstreamtest.Step{Events: []string{geminiText(`{"answer":"an ant"}`)}}),
	})
	g := start(t, clientsCfg, fs)
	const body = `{"model":"%s","max_tokens":1024,"stream":true,
"output_format":{"type":"json_schema","schema":{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}},
"messages":[{"role":"user","content":[{"type":"image","source":{"type":"url","url":"https://upload.wikimedia.org/wikipedia/commons/a/a7/Camponotus_flavomarginatus_ant.jpg"},"cache_control":{"type":"ephemeral"}},{"type":"text","text":"What is in this image?"}]}]}`
	for _, rt := range r40gRoutes {
		t.Run(rt.route, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/messages", fmt.Sprintf(body, rt.route), c50bHeaders...)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			m := c50bReadStream(t, r.Body)
			if claudeText(&m) != `{"answer":"an ant"}` {
				t.Errorf("text %q", claudeText(&m))
			}
			up := string(lastRaw(t, fs[rt.upstream]))
			switch rt.upstream {
			case "openai":
				if !strings.Contains(up, `"url":"https://upload.wikimedia.org/`) || !strings.Contains(up, `"response_format"`) {
					t.Errorf("OpenAI body %s", up)
				}
			case "gemini":
				if !strings.Contains(up, `"fileUri":"https://upload.wikimedia.org/`) || !strings.Contains(up, `"mimeType":"image/jpeg"`) {
					t.Errorf("Gemini body %s", up)
				}
			}
		})
	}
}

// Structured output beside tools (the Claude Agent SDK's `outputFormat`
// with its tools; anthropic-sdk-go's OutputConfig.Format) on a Gemini 2.5
// route, streamed: Detour declares its reserved answer function there
// (round 47g), and the Messages client must get the JSON as text with
// stop_reason end_turn, not a tool_use of a tool it never declared.
// Gemini's answer is a functionCall part as the Gemini API's
// function-calling guide streams one (whole, in one chunk).
func TestC50bStructuredWithToolsGemini25Stream(t *testing.T) {
	var declared string
	fs := fakes(t, map[string]upstreamtest.Script{
		"gemini": func(n int, r upstreamtest.Request) upstreamtest.Step {
			declared = string(r.Body)
			return r40gStrict("gemini", upstreamtest.Step{Events: []string{`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"detour_json_answer","args":{"answer":"42"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":50,"candidatesTokenCount":5,"totalTokenCount":55},"modelVersion":"gemini-2.5-flash"}`}})(n, r)
		},
		"openai":    strictOpenAI(upstreamtest.ChatJSON("gpt-4o-mini", "x")),
		"anthropic": r40gStrict("anthropic", upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "x")}),
	})
	g := start(t, clientsCfg, fs)
	const body = `{"model":"via-gem","max_tokens":1024,"stream":true,
"output_config":{"format":{"type":"json_schema","schema":{"type":"object","properties":{"answer":{"type":"string"}},"required":["answer"],"additionalProperties":false}}},
"tools":[{"name":"calculator","description":"Evaluate an expression","input_schema":{"type":"object","properties":{"expr":{"type":"string"}},"required":["expr"]}}],
"messages":[{"role":"user","content":[{"type":"text","text":"What is six times seven?"}]}]}`
	r := g.raw(t, http.MethodPost, "/v1/messages", body, c50bHeaders...)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	m := c50bReadStream(t, r.Body)
	if claudeText(&m) != `{"answer":"42"}` || m.StopReason != "end_turn" {
		t.Errorf("blocks %v text %q stop %q; Gemini got %s", c50bTypes(m), claudeText(&m), m.StopReason, declared)
	}
}

// An upstream stream cut after a tool call began (OpenAI's connection
// drops): the client must get the blocks so far and then an error event,
// never a message_stop that makes a half call look finished.
func TestC50bStreamCutInsideToolCall(t *testing.T) {
	evs := c50bDeepSeekStream()[:6] // reasoning, text, the call's first argument piece
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    r40gStrict("openai", upstreamtest.Step{Events: evs, Cut: true}),
		"anthropic": r40gStrict("anthropic", upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "x")}),
		"gemini":    r40gStrict("gemini", upstreamtest.Step{Body: geminiText("x")}),
	})
	g := start(t, clientsCfg, fs)
	const body = `{"model":"via-gpt","max_tokens":1024,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},
"tools":[{"name":"get_weather","description":"Get the weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}}}}],
"messages":[{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]}]}`
	r := g.raw(t, http.MethodPost, "/v1/messages", body, c50bHeaders...)
	evsOut := c50bEvents(t, r.Body)
	if len(evsOut) == 0 {
		t.Fatalf("status %d, no events: %s", r.Status, r.Body)
	}
	last := evsOut[len(evsOut)-1]
	for _, e := range evsOut {
		if e.name == "message_stop" || e.name == "message_delta" {
			t.Errorf("a cut stream ends with %s: %s", e.name, r.Body)
		}
	}
	if last.name != "error" {
		t.Errorf("last event %q, want error: %s", last.name, r.Body)
	}
}

// OpenAI's structured-outputs refusal: the model declines and says so in
// message.refusal (whole) or delta.refusal (streamed), content null,
// finish_reason "stop" (OpenAI's structured-outputs guide, "Refusals";
// the member in both objects as MacPaw/OpenAI#249 quotes the API
// reference). An Anthropic client asking for structured output
// (output_format) reads a refusal from stop_reason "refusal" and nothing
// else: @langchain/anthropic 1.6.3 (langchainjs#12122) "withStructuredOutput
// throws ModelRefusalError on a refusal", @ai-sdk/anthropic's
// mapAnthropicStopReason maps "refusal" to 'content-filter'. With
// end_turn, the client parses "I'm sorry…" as the JSON it asked for.
func TestC50bOpenAIRefusalIsStopReasonRefusal(t *testing.T) {
	const refusal = "I'm sorry, I cannot assist with that request."
	whole := `{"id":"chatcmpl-c50r","object":"chat.completion","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"message":{"role":"assistant","content":null,"refusal":"` + refusal + `"},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":10,"total_tokens":50}}`
	chunk := func(delta, finish string) string {
		return `{"id":"chatcmpl-c50r","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	events := []string{
		chunk(`{"role":"assistant","content":null,"refusal":""}`, "null"),
		chunk(`{"refusal":"I'm sorry, "}`, "null"),
		chunk(`{"refusal":"I cannot assist with that request."}`, "null"),
		chunk(`{}`, `"stop"`),
		`{"id":"chatcmpl-c50r","object":"chat.completion.chunk","created":1,"model":"gpt-4o-2024-08-06","choices":[],"usage":{"prompt_tokens":40,"completion_tokens":10,"total_tokens":50}}`,
		"[DONE]",
	}
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if r.Streamed() {
				return upstreamtest.Step{Events: events}
			}
			return upstreamtest.Step{Body: whole}
		},
		"anthropic": r40gStrict("anthropic", upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "x")}),
		"gemini":    r40gStrict("gemini", upstreamtest.Step{Body: geminiText("x")}),
	})
	g := start(t, clientsCfg, fs)
	const body = `{"model":"via-gpt","max_tokens":1024,"stream":%t,
"output_format":{"type":"json_schema","schema":{"type":"object","properties":{"steps":{"type":"array","items":{"type":"string"}}},"required":["steps"],"additionalProperties":false}},
"messages":[{"role":"user","content":[{"type":"text","text":"Give me step-by-step instructions."}]}]}`
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%t", stream), func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/messages", fmt.Sprintf(body, stream), c50bHeaders...)
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			var m anthropic.Message
			if stream {
				m = c50bReadStream(t, r.Body)
			} else if err := json.Unmarshal(r.Body, &m); err != nil {
				t.Fatal(err)
			}
			if m.StopReason != "refusal" {
				t.Errorf("stop_reason %q (text %q), want refusal", m.StopReason, claudeText(&m))
			}
		})
	}
}

// A turn another vendor answered with a whitespace-only text before its
// tool call ("\n\n", as OpenAI-compatible models often write before a
// call), then the next turn at Claude. Anthropic refuses whitespace-only
// text blocks in any message ("messages: text content blocks must contain
// non-whitespace text": anthropics/claude-code#23440, #23390 "conversation
// becomes permanently stuck"), and the cross-vendor case is reported as
// such: microsoft/vscode#307618 ("the model change to Claude sonet from
// GPT5.3 and keep pusing this error"), anomalyco/opencode#31259 ("400 …
// from whitespace-only assistant message"). The client (anthropic-sdk-go's
// accumulator, then MessageParam as every SDK user appends it) hands the
// turn back as it got it; the door already drops the other vendor's
// unsigned thinking before Claude for the same reason (unsigned.go).
func TestC50bWhitespaceTextThenClaude(t *testing.T) {
	chunk := func(delta, finish string) string {
		return `{"id":"chatcmpl-ws","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	events := []string{
		chunk(`{"role":"assistant","content":""}`, "null"),
		chunk(`{"content":"\n\n"}`, "null"),
		chunk(`{"tool_calls":[{"index":0,"id":"call_ws1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]}`, "null"),
		chunk(`{}`, `"tool_calls"`),
		`{"id":"chatcmpl-ws","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[],"usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}}`,
		"[DONE]",
	}
	whole := `{"id":"chatcmpl-ws","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":"\n\n","tool_calls":[{"id":"call_ws1","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if r.Streamed() {
				return upstreamtest.Step{Events: events}
			}
			return upstreamtest.Step{Body: whole}
		},
		"anthropic": r40gStrict("anthropic", upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "It is 15 degrees in Paris.")}),
		"gemini":    r40gStrict("gemini", upstreamtest.Step{Body: geminiText("x")}),
	})
	g := start(t, clientsCfg+"  - {name: claude-then-gpt, targets: [claude, gpt]}\n", fs)
	const tools = `"tools":[{"name":"get_weather","description":"Get the weather","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}]`
	user := `{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]}`
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%t", stream), func(t *testing.T) {
			first := fmt.Sprintf(`{"model":"via-gpt","max_tokens":1024,"stream":%t,%s,"messages":[%s]}`, stream, tools, user)
			r := g.raw(t, http.MethodPost, "/v1/messages", first, c50bHeaders...)
			if r.Status != 200 {
				t.Fatalf("first turn: status %d: %s", r.Status, r.Body)
			}
			var m anthropic.Message
			if stream {
				m = c50bReadStream(t, r.Body)
			} else if err := json.Unmarshal(r.Body, &m); err != nil {
				t.Fatal(err)
			}
			t.Logf("first turn blocks %v", c50bTypes(m))
			turn, err := json.Marshal(m.ToParam())
			if err != nil {
				t.Fatal(err)
			}
			var toolID string
			for _, c := range m.Content {
				if c.Type == "tool_use" {
					toolID = c.ID
				}
			}
			second := fmt.Sprintf(`{"model":"claude-then-gpt","max_tokens":1024,%s,"messages":[%s,%s,{"role":"user","content":[{"type":"tool_result","tool_use_id":%q,"content":"15 degrees"}]}]}`,
				tools, user, turn, toolID)
			r = g.raw(t, http.MethodPost, "/v1/messages", second, c50bHeaders...)
			if r.Status != 200 {
				t.Errorf("next turn at Claude: status %d: %s (the turn handed back: %s)", r.Status, r.Body, turn)
			}
		})
	}
}

// tool_choice.disable_parallel_tool_use (pydantic-ai's and LangChain's
// ChatAnthropic `parallel_tool_calls=False`, an SDK user's one-tool-at-a-time
// agent) on a route of OpenAI's o4-mini: the door sends
// parallel_tool_calls:false, which OpenAI's o-series refuse by name: 400
// {"message":"Unsupported parameter: 'parallel_tool_calls' is not supported
// with this model.","type":"invalid_request_error","param":"parallel_tool_calls",
// "code":"unsupported_parameter"} (evalstate/fast-agent#279 quotes it for
// o4-mini-2025-04-16; tensorzero/tensorzero#2805, o4-mini; defog-ai/defog#171:
// "o3-mini, o4-mini, and o3 do not support this parameter"). The door leaves
// out and resends sampling members a reasoning model refuses by name
// (docs/doors.md, internal/dispatch/sampling.go); this one is not among them.
func TestC50bDisableParallelToOSeries(t *testing.T) {
	const cfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: o4, model: o4-mini, providers: [openai]}
routes:
  - {name: via-o4, targets: [o4]}
`
	refusal := `{"error":{"message":"Unsupported parameter: 'parallel_tool_calls' is not supported with this model.","type":"invalid_request_error","param":"parallel_tool_calls","code":"unsupported_parameter"}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"parallel_tool_calls"`) {
				return upstreamtest.Step{Status: 400, Body: refusal}
			}
			return upstreamtest.Step{Body: openAIToolCall}
		},
	})
	g := start(t, cfg, fs)
	const body = `{"model":"via-o4","max_tokens":1024,"tool_choice":{"type":"auto","disable_parallel_tool_use":true},
"tools":[{"name":"get_weather","description":"Get the weather","input_schema":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}],
"messages":[{"role":"user","content":[{"type":"text","text":"Weather in Paris?"}]}]}`
	r := g.raw(t, http.MethodPost, "/v1/messages", body, c50bHeaders...)
	if r.Status != 200 {
		t.Errorf("status %d: %s (upstream calls %d)", r.Status, r.Body, fs["openai"].Calls())
	}
}
