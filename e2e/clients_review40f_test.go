package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 40f: request shapes real agents send that Detour had not met,
// replayed through a real gateway to an upstream of each dialect.

// clientsCfg has a route of one target per vendor.
const clientsCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: via-claude, targets: [claude]}
  - {name: via-gem, targets: [gem]}
  - {name: via-gpt, targets: [gpt]}
`

// claudeCodeHeaders are the headers Claude Code 2.1.337 sends with every
// model call (e2e/testdata/clients/claude-code-2.1.337-tool.jsonl; 2.1.332 sent the same).
var claudeCodeHeaders = []string{
	"x-api-key", "client-key",
	"anthropic-version", "2023-06-01",
	"anthropic-beta", "claude-code-20250219,interleaved-thinking-2025-05-14,context-management-2025-06-27,per-turn-control-2026-07-01,mid-conversation-tool-changes-2026-07-01,thinking-token-count-2026-05-13,advanced-tool-use-2025-11-20,effort-2025-11-24",
	"anthropic-dangerous-direct-browser-access", "true",
	"x-app", "cli",
}

// claudeCodeToolSearch is Claude Code's turn after its ToolSearch tool
// loaded a deferred tool. The tools are as Claude Code 2.1.332 declares
// them (ToolSearch's schema and the DeferredToolPlaceholder from the
// recording above); the discovered tool goes with defer_loading, as
// Anthropic's tool search takes deferred tools. The ToolSearch call and its
// result — a tool_result whose content is a tool_reference block naming the
// tool — are as claude 2.1.270 printed them in a recorded MCP session
// (tool_result.content [{"type":"tool_reference","tool_name":"mcp__echo__echo"}]).
const claudeCodeToolSearch = `{"model":%q,"max_tokens":32000,"stream":%v,
 "system":[{"type":"text","text":"x-anthropic-billing-header: cc_version=2.1.332; cc_entrypoint=sdk-cli;"},{"type":"text","text":"You are Claude Code.","cache_control":{"type":"ephemeral"}}],
 "thinking":{"type":"adaptive","display":"omitted"},
 "context_management":{"edits":[{"type":"clear_thinking_20251015","keep":"all"}]},
 "output_config":{"effort":"medium"},
 "metadata":{"user_id":"{\"device_id\":\"d\",\"account_uuid\":\"\",\"session_id\":\"s\"}"},
 "tools":[
  {"name":"ToolSearch","description":"Fetches full schema definitions for deferred tools so they can be called.","input_schema":{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"query":{"type":"string"},"max_results":{"default":5,"type":"number"}},"required":["query"],"additionalProperties":false}},
  {"name":"DeferredToolPlaceholder","description":"Reserved placeholder that keeps deferred tool loading active; never call this tool.","input_schema":{"type":"object","properties":{}},"defer_loading":true},
  {"name":"mcp__echo__echo","description":"Echo the text back","input_schema":{"type":"object","properties":{"text":{"type":"string"}},"required":["text"]},"defer_loading":true}
 ],
 "messages":[
  {"role":"user","content":[{"type":"text","text":"call the echo tool with ping"}]},
  {"role":"assistant","content":[{"type":"tool_use","id":"toolu_01GbW6bALaYNmPfoiRmcHaNL","name":"ToolSearch","input":{"query":"select:mcp__echo__echo","max_results":1}}]},
  {"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_01GbW6bALaYNmPfoiRmcHaNL","content":[{"type":"tool_reference","tool_name":"mcp__echo__echo"}]}]}
 ]}`

// Claude Code users on a route without Claude rely on its ToolSearch
// working: Claude Code 2.1.332 sends every tool beyond its core twelve
// (WebFetch, WebSearch, NotebookEdit, MCP tools…) deferred, and its system
// prompt tells the model to load one with ToolSearch before calling it.
// The result is a tool_result holding tool_reference blocks, which stays in
// every later request of the session. Detour refused the block for OpenAI
// and Gemini, so from the first tool search on every request of that
// session was a 400. The reference now reaches them as text naming the
// tool, whose definition they already have among the function tools; a
// Claude target gets it as sent.
func TestReview40fClaudeCodeToolSearchResult(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": strictAnthropic(anthropicMessage("claude-sonnet-4-5", "pong")),
		"gemini":    strictGemini(geminiText("pong")),
		"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"stream":true`) {
				return okStream("gpt-4o-mini", "po", "ng")
			}
			return ok("gpt-4o-mini", "pong")
		},
	})
	g := start(t, clientsCfg, fs)
	for _, c := range []struct {
		route    string
		upstream string
		stream   bool
	}{{"via-gpt", "openai", true}, {"via-gpt", "openai", false}, {"via-gem", "gemini", false}, {"via-claude", "anthropic", false}} {
		before := len(fs[c.upstream].Requests())
		body := strings.Replace(strings.Replace(claudeCodeToolSearch, "%q", `"`+c.route+`"`, 1), "%v", map[bool]string{true: "true", false: "false"}[c.stream], 1)
		r := g.raw(t, http.MethodPost, "/v1/messages?beta=true", body, claudeCodeHeaders...)
		if r.Status != 200 {
			t.Fatalf("%s stream=%v: %d %s", c.route, c.stream, r.Status, r.Body)
		}
		if c.stream {
			if !strings.Contains(string(r.Body), "event: message_stop") || !strings.Contains(string(r.Body), `"text":"po"`) {
				t.Errorf("%s: stream %s", c.route, r.Body)
			}
		} else if !strings.Contains(string(r.Body), `"text":"pong"`) {
			t.Errorf("%s: answer %s", c.route, r.Body)
		}
		reqs := fs[c.upstream].Requests()
		if len(reqs) != before+1 {
			t.Fatalf("%s: %d upstream calls", c.route, len(reqs)-before)
		}
		up := string(reqs[len(reqs)-1].Body)
		switch c.upstream {
		case "anthropic":
			if !strings.Contains(up, `{"type":"tool_reference","tool_name":"mcp__echo__echo"}`) {
				t.Errorf("Claude got %s, want the reference as sent", up)
			}
		case "openai":
			var sent struct {
				Messages []struct {
					Role       string `json:"role"`
					Content    any    `json:"content"`
					ToolCallID string `json:"tool_call_id"`
				} `json:"messages"`
				Tools []struct {
					Function struct{ Name string } `json:"function"`
				} `json:"tools"`
			}
			if err := json.Unmarshal(reqs[len(reqs)-1].Body, &sent); err != nil {
				t.Fatal(err)
			}
			last := sent.Messages[len(sent.Messages)-1]
			text, _ := last.Content.(string)
			if last.Role != "tool" || last.ToolCallID != "toolu_01GbW6bALaYNmPfoiRmcHaNL" || !strings.Contains(text, "mcp__echo__echo") {
				t.Errorf("OpenAI's last message %+v, want the tool result naming the loaded tool", last)
			}
			var names []string
			for _, tl := range sent.Tools {
				names = append(names, tl.Function.Name)
			}
			if !strings.Contains(strings.Join(names, ","), "mcp__echo__echo") {
				t.Errorf("OpenAI's tools %v, want the loaded tool among them", names)
			}
		case "gemini":
			if !strings.Contains(up, `"functionResponse"`) || !strings.Contains(up, "mcp__echo__echo") {
				t.Errorf("Gemini got %s, want a function response naming the tool", up)
			}
		}
	}
}

// codexViewImage is Codex's request after its view_image tool ran: the
// tool's output is a list holding one input_image with a data: URL
// (codex-rs/core/src/tools/handlers/view_image.rs, ViewImageOutput:
// FunctionCallOutputBody::ContentItems with one InputImage; Codex gives
// every model it does not know image input, so a Detour route name gets
// view_image among its tools). The other members are those Codex 0.171.0
// sends for a model name it does not know
// (e2e/testdata/clients/codex-0.171.0-route-model-function-tools.jsonl).
const codexViewImage = `{"model":%q,"stream":true,"store":false,"tool_choice":"auto","parallel_tool_calls":true,
 "reasoning":{"summary":"auto"},"include":["reasoning.encrypted_content"],"prompt_cache_key":"019a-session",
 "tools":[{"type":"function","name":"view_image","description":"View a local image from the filesystem.","strict":false,"parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}}],
 "input":[
  {"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},
  {"type":"message","role":"user","content":[{"type":"input_text","text":"what is in shot.png?"}]},
  {"type":"function_call","id":"fc_1","status":"completed","call_id":"call_view","name":"view_image","arguments":"{\"path\":\"shot.png\"}"},
  {"type":"function_call_output","call_id":"call_view","output":[{"type":"input_image","image_url":"data:image/png;base64,iVBORw0KGgo="}]}
 ]}`

// Codex users on a translated route rely on view_image: when the model
// looks at a screenshot, Codex sends the tool's output as an input_image
// part, and that output stays in every later request of the session.
// Detour refused any tool output part but text, so from that call on
// every request was a 400. The image now goes to the upstream in a user
// message right after the tool results (chat tool messages hold text
// only), as the Messages door does with images in a tool_result.
func TestReview40fCodexViewImageOutput(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "a cat")}
		},
		"gemini": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Events: []string{geminiText("a cat")}}
		},
		"openai": func(_ int, r upstreamtest.Request) upstreamtest.Step { return okStream("gpt-4o-mini", "a ", "cat") },
	})
	g := start(t, clientsCfg, fs)
	for _, c := range []struct{ route, upstream string }{{"via-gpt", "openai"}, {"via-claude", "anthropic"}, {"via-gem", "gemini"}} {
		body := strings.Replace(codexViewImage, "%q", `"`+c.route+`"`, 1)
		r := g.raw(t, http.MethodPost, "/v1/responses", body, "Authorization", "Bearer client-key", "accept", "text/event-stream", "originator", "codex_exec")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		if !strings.Contains(string(r.Body), "event: response.completed") || !strings.Contains(string(r.Body), "cat") {
			t.Errorf("%s: stream %s", c.route, r.Body)
		}
		reqs := fs[c.upstream].Requests()
		up := string(reqs[len(reqs)-1].Body)
		want := map[string]string{
			"openai":    `"image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}`,
			"anthropic": `"data":"iVBORw0KGgo="`,
			"gemini":    `"data":"iVBORw0KGgo="`,
		}[c.upstream]
		if !strings.Contains(up, want) {
			t.Errorf("%s got %s, want the image", c.upstream, up)
		}
		if c.upstream == "openai" {
			var sent struct {
				Messages []struct {
					Role       string          `json:"role"`
					ToolCallID string          `json:"tool_call_id"`
					Content    json.RawMessage `json:"content"`
				} `json:"messages"`
			}
			if err := json.Unmarshal(reqs[len(reqs)-1].Body, &sent); err != nil {
				t.Fatal(err)
			}
			n := len(sent.Messages)
			if n < 2 || sent.Messages[n-2].Role != "tool" || sent.Messages[n-2].ToolCallID != "call_view" || sent.Messages[n-1].Role != "user" {
				t.Errorf("OpenAI's messages %s, want the tool result then a user message with the image", reqs[len(reqs)-1].Body)
			}
		}
	}
}

// zedChat is what Zed's agent sends to an OpenAI-compatible provider after
// a tool answered an image (crates/open_ai/src/open_ai.rs: Request,
// RequestMessage, MessageContent; crates/language_models' into_open_ai: an
// image tool result is a tool message whose content is one image_url part,
// temperature 1.0 unless set, parallel_tool_calls false with tools,
// stream_options include_usage; the assistant's content None is null).
const zedChat = `{"model":%q,"stream":true,"stream_options":{"include_usage":true},"temperature":1.0,"max_completion_tokens":8192,
 "parallel_tool_calls":false,"prompt_cache_key":"thread-1",
 "tools":[{"type":"function","function":{"name":"read_file","description":"Read a file","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}],
 "messages":[
  {"role":"system","content":"You are a helpful assistant."},
  {"role":"user","content":[{"type":"text","text":"what is in logo.png?"}]},
  {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"read_file","arguments":"{\"path\":\"logo.png\"}"}}]},
  {"role":"tool","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo="}}],"tool_call_id":"call_1"}
 ]}`

// zedReads parses a chat stream as Zed's stream_completion does: each
// data line but [DONE] is either {"error":{"message"}} or an event whose
// choices are a list (index, delta, finish_reason) and whose usage, when
// not null, has prompt_tokens, completion_tokens and total_tokens. It
// returns the text.
func zedReads(t *testing.T, body []byte) string {
	t.Helper()
	var text strings.Builder
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimPrefix(data, " ")
		if data == "[DONE]" {
			continue
		}
		var ev struct {
			Choices *[]struct {
				Index *uint32 `json:"index"`
				Delta *struct {
					Role    *string `json:"role"`
					Content *string `json:"content"`
				} `json:"delta"`
				FinishReason *string `json:"finish_reason"`
			} `json:"choices"`
			Usage *struct{ PromptTokens, CompletionTokens, TotalTokens *uint64 } `json:"usage"`
			Error *struct{ Message *string }                                     `json:"error"`
		}
		if err := json.Unmarshal([]byte(data), &ev); err != nil {
			t.Fatalf("Zed cannot parse %s: %v", data, err)
		}
		if ev.Error != nil && ev.Error.Message != nil {
			t.Fatalf("Zed reads an error: %s", data)
		}
		if ev.Choices == nil {
			t.Fatalf("Zed cannot parse %s: no choices", data)
		}
		if u := ev.Usage; u != nil {
			var raw struct {
				Usage map[string]any `json:"usage"`
			}
			_ = json.Unmarshal([]byte(data), &raw)
			for _, k := range []string{"prompt_tokens", "completion_tokens", "total_tokens"} {
				if _, ok := raw.Usage[k].(float64); !ok {
					t.Fatalf("Zed cannot parse %s: usage without %s", data, k)
				}
			}
		}
		for _, c := range *ev.Choices {
			if c.Index == nil {
				t.Fatalf("Zed cannot parse %s: a choice without index", data)
			}
			if c.Delta != nil && c.Delta.Content != nil {
				text.WriteString(*c.Delta.Content)
			}
		}
	}
	return text.String()
}

// Zed users rely on its OpenAI-compatible provider working through Detour
// to any vendor: a tool result that is an image (a tool message whose
// content is an image part) reaches each vendor with the image, and every
// chunk of the answer parses under Zed's stream types.
func TestReview40fZedToolImageStream(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "a ", "logo")}),
		"gemini":    script(upstreamtest.Step{Events: []string{geminiText("a logo")}}),
		"openai":    script(okStream("gpt-4o-mini", "a ", "logo")),
	})
	g := start(t, clientsCfg, fs)
	for _, c := range []struct{ route, upstream, image string }{
		{"via-gpt", "openai", `"url":"data:image/png;base64,iVBORw0KGgo="`},
		{"via-claude", "anthropic", `"data":"iVBORw0KGgo="`},
		{"via-gem", "gemini", `"data":"iVBORw0KGgo="`},
	} {
		body := strings.Replace(zedChat, "%q", `"`+c.route+`"`, 1)
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		if got := zedReads(t, r.Body); got != "a logo" {
			t.Errorf("%s: Zed reads %q from %s", c.route, got, r.Body)
		}
		reqs := fs[c.upstream].Requests()
		if up := string(reqs[len(reqs)-1].Body); !strings.Contains(up, c.image) {
			t.Errorf("%s got %s, want the image", c.upstream, up)
		}
	}
}
