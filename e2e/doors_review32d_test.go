package e2e

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32d: the translating doors driven by the official SDKs.

// anthropicToolID is the pattern Anthropic's Messages API holds every
// tool_use.id and tool_result.tool_use_id to: a request with another id is
// its 400 "messages.N.content.M.id: String should match pattern
// '^[a-zA-Z0-9_-]+$'".
var anthropicToolID = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// anthropicValidatingIDs answers like Anthropic: the 400 for a tool id
// outside the pattern, else answer.
func anthropicValidatingIDs(answer upstreamtest.Step) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		var b anthropicReq
		_ = json.Unmarshal(r.Body, &b)
		for i, m := range b.Messages {
			for j, c := range m.Content {
				id := c.ID
				if c.Type == "tool_result" {
					id = c.ToolUseID
				}
				if (c.Type == "tool_use" || c.Type == "tool_result") && !anthropicToolID.MatchString(id) {
					msg, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error",
						"message": "messages." + r32dItoa(i) + ".content." + r32dItoa(j) + ".id: String should match pattern '^[a-zA-Z0-9_-]+$'"}})
					return upstreamtest.Step{Status: 400, Body: string(msg)}
				}
			}
		}
		return answer
	}
}

func r32dItoa(i int) string { b, _ := json.Marshal(i); return string(b) }

// Moonshot's Kimi K2 (an OpenAI-compatible upstream) names its tool calls
// "functions.<name>:<n>". The conversation's first turn went to Kimi; on the
// second Kimi is overloaded and the route fails over to Claude with the
// whole history, tool call ids included. Anthropic refuses ids outside
// ^[a-zA-Z0-9_-]+$, so the failover target answers 400 and the client's
// turn fails: the id must be made one Anthropic takes (the same mapping on
// tool_use.id and tool_result.tool_use_id).
func TestReview32dForeignToolIDToClaude(t *testing.T) {
	const cfg = `
providers:
  - {name: kimi, dialect: openai, base_url: "{kimi}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: k2, model: kimi-k2-0905-preview, providers: [kimi]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: agent, targets: [k2, claude]}
`
	// https://platform.moonshot.ai/docs/guide/use-kimi-k2-tool-calling: ids "functions.get_weather:0"
	kimiCall := `{"id":"chatcmpl-k2","object":"chat.completion","created":1,"model":"kimi-k2-0905-preview","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[{"index":0,"id":"functions.get_weather:0","type":"function","function":{"name":"get_weather","arguments":"{\"location\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}`
	overloaded := upstreamtest.Step{Status: 503, Body: `{"error":{"message":"The engine is currently overloaded, please try again later","type":"engine_overloaded_error"}}`}
	fs := fakes(t, map[string]upstreamtest.Script{
		"kimi":      script(upstreamtest.Step{Body: kimiCall}, overloaded),
		"anthropic": anthropicValidatingIDs(upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")}),
	})
	g := start(t, cfg, fs)
	p := ask("agent", "What's the weather in Paris?", false)
	p.Tools = []openai.ChatCompletionToolUnionParam{weatherTool()}
	c, err := sdk(g).Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	call := c.Choices[0].Message.ToolCalls[0]
	p.Messages = append(p.Messages, c.Choices[0].Message.ToParam(), openai.ToolMessage("15 degrees", call.ID))
	c2, err := sdk(g).Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatalf("second turn, failed over to Claude: %v\nClaude got: %s", err, r32dLastBody(fs["anthropic"]))
	}
	if c2.Choices[0].Message.Content != "Hi! My name is Claude." {
		t.Errorf("second turn: %+v", c2.Choices[0])
	}
}

func r32dLastBody(s *upstreamtest.Server) string {
	r := s.Requests()
	if len(r) == 0 {
		return "(nothing)"
	}
	return string(r[len(r)-1].Body)
}

// anthropicValidatingSignatures answers like Anthropic since October 2025:
// a thinking block in the history whose signature is not one Anthropic
// issued is its 400 "messages.N.content.M: Invalid `signature` in
// `thinking` block" (see langchain-ai/langchain#33391, anthropics/
// anthropic-sdk-python#1598). first answers a one-turn conversation.
func anthropicValidatingSignatures(first, answer upstreamtest.Step) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		var b struct {
			Messages []struct {
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(r.Body, &b)
		for i, m := range b.Messages {
			var blocks []struct {
				Type      string  `json:"type"`
				Signature *string `json:"signature"`
			}
			_ = json.Unmarshal(m.Content, &blocks)
			for j, c := range blocks {
				if c.Type == "thinking" && (c.Signature == nil || *c.Signature != "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds") {
					return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.` +
						r32dItoa(i) + `.content.` + r32dItoa(j) + `: Invalid ` + "`signature` in `thinking`" + ` block"}}`}
				}
			}
		}
		if len(b.Messages) == 1 {
			return first
		}
		return answer
	}
}

// A Messages session on a route whose first target is Claude: one turn
// fails over to an OpenAI-compatible reasoning model (DeepSeek's
// reasoning_content), which the door answers as a "thinking" block with an
// empty signature. The Anthropic SDK hands that turn back as it is told to
// (Message.ToParam), and the next turn, Claude being up again, goes
// through to Anthropic byte for byte: Anthropic refuses the unsigned
// thinking block, and as long as Claude answers first every later turn of
// the conversation fails with the same 400.
func TestReview32dForeignThinkingWedgesClaude(t *testing.T) {
	deepseek := `{"id":"chatcmpl-ds","object":"chat.completion","created":1,"model":"deepseek-reasoner","choices":[{"index":0,"message":{"role":"assistant","reasoning_content":"The user greets me; answer briefly.","content":"Hello!"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":12,"total_tokens":22}}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": anthropicValidatingSignatures(corpus(t, "anthropic-overloaded-529"),
			upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "Hi again from Claude")}),
		"openai": script(upstreamtest.Step{Body: deepseek}),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	params := askClaude("deep", "hi")
	params.MaxTokens = 2048 // extended thinking on, as Claude Code asks for it
	params.Thinking = anthropic.ThinkingConfigParamOfEnabled(1024)
	m, err := c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Content) != 2 || m.Content[0].Type != "thinking" {
		t.Fatalf("first turn (failed over to the reasoning model): %s", m.RawJSON())
	}
	params.Messages = append(params.Messages, m.ToParam(), anthropic.NewUserMessage(anthropic.NewTextBlock("and again?")))
	m2, err := c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatalf("second turn, Claude up again: %v\nClaude got: %s", err, r32dLastBody(fs["anthropic"]))
	}
	if claudeText(m2) != "Hi again from Claude" {
		t.Errorf("second turn: %s", m2.RawJSON())
	}
}

// OpenAI-compatible servers that answer tool calls without an id (LM Studio's
// "id": "", StepFun and Ollama leaving it out, SGLang's streams giving no id
// to the call at index 1: lmstudio-bug-tracker#830, sgl-project/sglang#7048).
// The Messages door makes one up ("toolu_…"); the Responses door hands the
// client function_call items with "call_id": "", the same for both calls,
// so the client cannot say which output answers which call, and its
// round trip (a function_call_output with call_id "") is Detour's own 400.
func TestReview32dResponsesCallWithoutID(t *testing.T) {
	const cfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: local, model: qwen3, providers: [openai]}
routes:
  - {name: agent, targets: [local]}
`
	whole := `{"id":"chatcmpl-l","object":"chat.completion","created":1,"model":"qwen3","choices":[{"index":0,"message":{"role":"assistant","content":"","tool_calls":[` +
		`{"type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}},` +
		`{"id":"","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Rome\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":10,"total_tokens":30}}`
	chunk := func(delta string, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"qwen3","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
	}
	streamed := []string{
		chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_a1","type":"function","function":{"name":"get_weather","arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"city\":\"Paris\"}"}}]}`, ""),
		chunk(`{"tool_calls":[{"index":1,"type":"function","function":{"name":"get_weather","arguments":""}}]}`, ""),
		chunk(`{"tool_calls":[{"index":1,"function":{"arguments":"{\"city\":\"Rome\"}"}}]}`, ""),
		chunk(`{}`, "tool_calls"),
		"[DONE]",
	}
	weather := responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{Name: "get_weather", Strict: openai.Bool(false),
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}
	check := func(t *testing.T, out []responses.ResponseOutputItemUnion) {
		t.Helper()
		var ids []string
		for _, it := range out {
			if it.Type == "function_call" {
				ids = append(ids, it.AsFunctionCall().CallID)
			}
		}
		if len(ids) != 2 || ids[0] == "" || ids[1] == "" || ids[0] == ids[1] {
			t.Errorf("function_call call_ids %q: want two distinct, non-empty ids", ids)
		}
	}
	t.Run("whole", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: whole})})
		g := start(t, cfg, fs)
		p := say("agent", "weather in Paris and Rome?")
		p.Tools = []responses.ToolUnionParam{weather}
		r, err := sdk(g).Responses.New(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		check(t, r.Output)
	})
	t.Run("stream", func(t *testing.T) {
		fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Events: streamed})})
		g := start(t, cfg, fs)
		p := say("agent", "weather in Paris and Rome?")
		p.Tools = []responses.ToolUnionParam{weather}
		st := sdk(g).Responses.NewStreaming(context.Background(), p)
		var final *responses.Response
		for st.Next() {
			if e := st.Current(); e.Type == "response.completed" {
				r := e.Response
				final = &r
			}
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		if final == nil {
			t.Fatal("no response.completed")
		}
		check(t, final.Output)
	})
}

// An answer that says something after its tool call (Gemini's parts
// [functionCall, text], Claude's text after a tool_use block): the
// Responses stream leaves the call open while the second message item
// opens, and at the end closes the message before the call, so
// response.output_item.done comes for output_index 2 before 1. docs/doors.md
// ("Stream", 4) promises every open item closes in output order; a client
// that builds its history from output_item.done (Codex does) gets the
// items in another order than response.completed's output.
func TestReview32dResponsesDoneOrder(t *testing.T) {
	const cfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: agent, targets: [gpt]}
`
	chunk := func(delta, finish string) string {
		f := "null"
		if finish != "" {
			f = `"` + finish + `"`
		}
		return `{"id":"chatcmpl-s","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + f + `}]}`
	}
	events := []string{
		chunk(`{"role":"assistant","content":"Let me check."}`, ""),
		chunk(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]}`, ""),
		chunk(`{"content":"One moment."}`, ""),
		chunk(`{}`, "tool_calls"),
		"[DONE]",
	}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Events: events})})
	g := start(t, cfg, fs)
	p := say("agent", "weather in Paris?")
	p.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather", Strict: openai.Bool(false),
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}}}}}
	wantDoneInOutputOrder(t, g, p)
}

// wantDoneInOutputOrder streams p through g's Responses door with openai-go
// and wants every response.output_item.done in output order.
func wantDoneInOutputOrder(t *testing.T, g *gateway, p responses.ResponseNewParams) {
	t.Helper()
	st := sdk(g).Responses.NewStreaming(context.Background(), p)
	var done []int64
	var final []string
	for st.Next() {
		e := st.Current()
		switch e.Type {
		case "response.output_item.done":
			done = append(done, e.OutputIndex)
		case "response.completed":
			for _, it := range e.Response.Output {
				final = append(final, it.Type)
			}
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(done); i++ {
		if done[i] < done[i-1] {
			t.Errorf("output_item.done came for output_index %v (response.completed's output: %v): not in output order", done, final)
			break
		}
	}
}

// A call of a tool without parameters, streamed by Claude: Anthropic's
// stream opens the tool_use block with "input":{} and sends its input as
// one input_json_delta whose partial_json is "" (the tool-use docs'
// streaming example for an empty input). Unstreamed, the same answer
// reaches the client as "arguments":"{}" (as OpenAI itself sends for such a
// call); streamed, the client's accumulated arguments are "", which is
// not JSON: json.Unmarshal("") fails in the application's tool dispatch,
// and at /v1/responses response.function_call_arguments.done and the
// function_call item carry "arguments": "".
func TestReview32dClaudeStreamEmptyToolInput(t *testing.T) {
	ev := func(typ string, v map[string]any) string {
		v["type"] = typ
		b, _ := json.Marshal(v)
		return "event: " + typ + "\ndata: " + string(b)
	}
	events := []string{
		ev("message_start", map[string]any{"message": map[string]any{"id": "msg_t", "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 30, "output_tokens": 1}}}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "tool_use", "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "name": "now", "input": map[string]any{}}}),
		ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "input_json_delta", "partial_json": ""}}),
		ev("content_block_stop", map[string]any{"index": 0}),
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "tool_use", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 12}}),
		ev("message_stop", map[string]any{}),
	}
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Events: events}),
		"gemini":    script(ok("x", "x")),
	})
	g := start(t, sdkDialectCfg, fs)
	t.Run("chat", func(t *testing.T) {
		p := ask("claude", "What time is it?", true)
		p.Tools = []openai.ChatCompletionToolUnionParam{nowTool()}
		acc, err := accumulate(t, sdk(g).Chat.Completions.NewStreaming(context.Background(), p))
		if err != nil {
			t.Fatal(err)
		}
		if len(acc.Choices) != 1 || len(acc.Choices[0].Message.ToolCalls) != 1 {
			t.Fatalf("accumulated: %s", acc.RawJSON())
		}
		args := acc.Choices[0].Message.ToolCalls[0].Function.Arguments
		var v map[string]any
		if err := json.Unmarshal([]byte(args), &v); err != nil {
			t.Errorf("streamed tool call arguments %q do not parse (%v); unstreamed they are \"{}\"", args, err)
		}
	})
	t.Run("responses", func(t *testing.T) {
		p := say("claude", "What time is it?")
		p.Tools = []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "now", Strict: openai.Bool(false),
			Parameters: map[string]any{"type": "object", "properties": map[string]any{}}}}}
		st := sdk(g).Responses.NewStreaming(context.Background(), p)
		var args *string
		for st.Next() {
			if e := st.Current(); e.Type == "response.function_call_arguments.done" {
				a := e.Arguments
				args = &a
			}
		}
		if err := st.Err(); err != nil {
			t.Fatal(err)
		}
		if args == nil || !json.Valid([]byte(*args)) {
			t.Errorf("response.function_call_arguments.done arguments: %v; want a JSON object", strp(args))
		}
	})
}

func strp(s *string) string {
	if s == nil {
		return "(none)"
	}
	b, _ := json.Marshal(*s)
	return string(b)
}
