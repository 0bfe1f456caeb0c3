package bench

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A coding agent's request is not a short chat: Claude Code and Codex send
// a long system prompt, a few dozen tool definitions and the whole
// conversation with its tool results on every turn, 100–300 KB. These
// benchmarks send such a body (~160 KB: 20 tools, 30 tool rounds of ~4 KB
// results) through each door, beside the same fake called directly
// (docs/benchmarks.md, "Large requests").

// agentTurns is the conversation of a coding agent after rounds tool calls,
// as Messages (anthropic) or chat (openai) messages.
func agentTurns(rounds int, anthropic bool) []any {
	msgs := []any{map[string]any{"role": "user", "content": "Fix the failing test in parser_test.go"}}
	result := strings.Repeat("func parse(s string) (Node, error) { return parseExpr(s, 0) }\n", 65)
	for i := range rounds {
		id := fmt.Sprintf("toolu_%024d", i)
		path := fmt.Sprintf("internal/parser/file%d.go", i)
		if anthropic {
			msgs = append(msgs,
				map[string]any{"role": "assistant", "content": []any{
					map[string]any{"type": "text", "text": "Let me read the next file."},
					map[string]any{"type": "tool_use", "id": id, "name": "read_file", "input": map[string]any{"path": path}}}},
				map[string]any{"role": "user", "content": []any{
					map[string]any{"type": "tool_result", "tool_use_id": id, "content": result}}})
			continue
		}
		msgs = append(msgs,
			map[string]any{"role": "assistant", "content": "Let me read the next file.", "tool_calls": []any{
				map[string]any{"id": id, "type": "function", "function": map[string]any{"name": "read_file", "arguments": `{"path":"` + path + `"}`}}}},
			map[string]any{"role": "tool", "tool_call_id": id, "content": result})
	}
	return msgs
}

// agentTools are n tool definitions with a paragraph of description each.
func agentTools(n int, anthropic bool) []any {
	out := make([]any, n)
	for i := range out {
		schema := map[string]any{"type": "object", "required": []string{"path"}, "properties": map[string]any{
			"path":  map[string]any{"type": "string", "description": "The file's path, relative to the repository."},
			"limit": map[string]any{"type": "integer", "description": "At most this many lines."}}}
		name, desc := fmt.Sprintf("tool_%d", i), strings.Repeat("Reads or changes files in the workspace and reports what it did. ", 12)
		if anthropic {
			out[i] = map[string]any{"name": name, "description": desc, "input_schema": schema}
		} else {
			out[i] = map[string]any{"type": "function", "function": map[string]any{"name": name, "description": desc, "parameters": schema}}
		}
	}
	return out
}

// agentBody is a coding agent's ~160 KB request to model, in the Messages
// API's shape (anthropic) or chat completions'.
func agentBody(model string, anthropic, stream bool) string {
	system := strings.Repeat("You are a coding agent working in a Go repository. Keep changes small and tested. ", 90)
	req := map[string]any{"model": model, "max_tokens": 8192, "stream": stream,
		"tools": agentTools(20, anthropic), "messages": agentTurns(30, anthropic)}
	if anthropic {
		req["system"] = []any{map[string]any{"type": "text", "text": system, "cache_control": map[string]any{"type": "ephemeral"}}}
	} else {
		req["messages"] = append([]any{map[string]any{"role": "system", "content": system}}, req["messages"].([]any)...)
	}
	b, err := json.Marshal(req)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// BenchmarkDirectBig: the OpenAI fake's answer to an agent's chat request, called directly.
func BenchmarkDirectBig(b *testing.B) {
	f := fake(b, upstreamtest.Step{Body: answer})
	run(b, client(1), f.URL+"/chat/completions", agentBody(model, false, false), plainOK)
}

// BenchmarkGatewayBig: the same through Detour's chat door.
func BenchmarkGatewayBig(b *testing.B) {
	f := fake(b, upstreamtest.Step{Body: answer})
	run(b, client(1), gateway(b, f.URL)+"/v1/chat/completions", agentBody("gpt", false, false), plainOK)
}

// BenchmarkMessagesDirectBig: the Anthropic fake's Message for an agent's request, called directly.
func BenchmarkMessagesDirectBig(b *testing.B) {
	e := messagesSetup(b, "anthropic", upstreamtest.Step{Body: anthropicAnswer})
	run(b, client(1), e.direct, agentBody("claude", true, false), messageOK)
}

// BenchmarkMessagesPassthroughBig: the same through Detour's /v1/messages to an Anthropic target.
func BenchmarkMessagesPassthroughBig(b *testing.B) {
	e := messagesSetup(b, "anthropic", upstreamtest.Step{Body: anthropicAnswer})
	run(b, client(1), e.gateway, agentBody("claude", true, false), messageOK)
}

// BenchmarkMessagesTranslatedBig: an agent's Messages request to an OpenAI target (translated).
func BenchmarkMessagesTranslatedBig(b *testing.B) {
	e := messagesSetup(b, "openai", upstreamtest.Step{Body: answer})
	run(b, client(1), e.gateway, agentBody("claude", true, false), messageOK)
}

// BenchmarkGatewayBigToAnthropic: an agent's chat request through the chat
// door to an Anthropic target (translated both ways).
func BenchmarkGatewayBigToAnthropic(b *testing.B) {
	e := messagesSetup(b, "anthropic", upstreamtest.Step{Body: anthropicAnswer})
	url := strings.TrimSuffix(e.gateway, "/v1/messages") + "/v1/chat/completions"
	run(b, client(1), url, agentBody("claude", false, false), plainOK)
}

// agentResponsesBody is a coding agent's ~160 KB request in the Responses
// API's shape (Codex's): instructions, function tools and the whole
// conversation as input items.
func agentResponsesBody(model string) string {
	input := []any{map[string]any{"type": "message", "role": "user", "content": []any{
		map[string]any{"type": "input_text", "text": "Fix the failing test in parser_test.go"}}}}
	result := strings.Repeat("func parse(s string) (Node, error) { return parseExpr(s, 0) }\n", 65)
	for i := range 30 {
		id := fmt.Sprintf("call_%024d", i)
		input = append(input,
			map[string]any{"type": "function_call", "call_id": id, "name": "read_file", "arguments": fmt.Sprintf(`{"path":"internal/parser/file%d.go"}`, i)},
			map[string]any{"type": "function_call_output", "call_id": id, "output": result})
	}
	tools := make([]any, 20)
	for i := range tools {
		tools[i] = map[string]any{"type": "function", "name": fmt.Sprintf("tool_%d", i),
			"description": strings.Repeat("Reads or changes files in the workspace and reports what it did. ", 12),
			"parameters": map[string]any{"type": "object", "required": []string{"path"}, "properties": map[string]any{
				"path": map[string]any{"type": "string", "description": "The file's path, relative to the repository."}}}}
	}
	b, err := json.Marshal(map[string]any{"model": model, "store": false, "stream": false,
		"instructions": strings.Repeat("You are a coding agent working in a Go repository. Keep changes small and tested. ", 90),
		"tools":        tools, "input": input})
	if err != nil {
		panic(err)
	}
	return string(b)
}

// BenchmarkGatewayResponsesBig: an agent's Responses request through
// /v1/responses to an OpenAI chat target (translated both ways).
func BenchmarkGatewayResponsesBig(b *testing.B) {
	run(b, client(1), doorSetup(b, upstreamtest.Step{Body: answer}, "/v1/responses"), agentResponsesBody("gpt"), responseOK)
}
