package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 50 (probe c50a, kept): the Chat Completions door as coding agents send it
// today, to Claude and Gemini targets. Every request names its source.

// c50aPost sends body to the chat door and wants a 200 whose answer (whole
// or streamed) carries text.
func c50aPost(t *testing.T, g *gateway, body string, stream bool) reply {
	t.Helper()
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if stream {
		chunks, done := r40gChunks(t, r.Body)
		if !done || len(chunks) == 0 {
			t.Fatalf("stream without [DONE] or chunks: %s", r.Body)
		}
		return r
	}
	m := r.json(t)
	ch, _ := m["choices"].([]any)
	if len(ch) == 0 {
		t.Fatalf("no choices: %s", r.Body)
	}
	return r
}

// c50aOpencodeCached is what opencode (and Kilo, its fork) sends through
// @ai-sdk/openai-compatible for a model whose id contains "claude" — a
// Detour route named so, as "via-claude" is. opencode's
// ProviderTransform.applyCaching (Kilo-Org/kilo
// packages/opencode/src/provider/transform.ts) marks the first two system
// messages and the last two other messages with
// providerOptions.openaiCompatible.cache_control {type: ephemeral}, and
// @ai-sdk/openai-compatible's convertToOpenAICompatibleChatMessages
// (src/chat/convert-to-openai-compatible-chat-messages.ts, 3.0.92) spreads
// that metadata onto the MESSAGE: `{role:'system', content, ...metadata}`,
// a user turn of one text part `{role:'user', content: text,
// ...getOpenAIMetadata(content[0])}`, a tool result `{role:'tool',
// tool_call_id, content, ...toolResponseMetadata}`. So the marks arrive
// as message-level cache_control beside string content.
const c50aOpencodeCached = `{"model":%q,"stream":%v,"stream_options":{"include_usage":true},"max_tokens":32000,
 "messages":[
  {"role":"system","content":"You are opencode, an interactive CLI tool that helps users with software engineering tasks. %s","cache_control":{"type":"ephemeral"}},
  {"role":"user","content":"list the files"},
  {"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"}}]},
  {"role":"tool","tool_call_id":"call_1","content":"a.go\nb.go","cache_control":{"type":"ephemeral"}},
  {"role":"user","content":"now read a.go","cache_control":{"type":"ephemeral"}}
 ],
 "tools":[{"type":"function","function":{"name":"bash","description":"Run a shell command","parameters":{"type":"object","properties":{"command":{"type":"string"}},"required":["command"],"additionalProperties":false,"$schema":"http://json-schema.org/draft-07/schema#"}}}],
 "tool_choice":"auto"}`

// opencode's cache marks on a Claude route: the client means Claude to
// cache its system prompt and the conversation up to the last turn, as
// the same marks on content parts (Roo Code's, Cline's) already do
// (docs/doors.md: "a content part's cache_control … kept on the block it
// marks"). Message-level marks are dropped, so every turn of an opencode
// session on a Claude route pays full input price.
func TestC50aOpencodeMessageLevelCacheControl(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			fs := r40gTextFakes(t)
			g := start(t, clientsCfg, fs)
			body := fmt.Sprintf(c50aOpencodeCached, "via-claude", stream, strings.Repeat("Be concise. ", 50))
			c50aPost(t, g, body, stream)
			var req struct {
				System   []map[string]any `json:"system"`
				Messages []struct {
					Role    string           `json:"role"`
					Content []map[string]any `json:"content"`
				} `json:"messages"`
			}
			raw := lastRaw(t, fs["anthropic"])
			if err := json.Unmarshal(raw, &req); err != nil {
				t.Fatalf("system is not a list of blocks (no mark kept?): %v: %s", err, raw)
			}
			marked := 0
			if len(req.System) == 0 || req.System[len(req.System)-1]["cache_control"] == nil {
				t.Errorf("system prompt not marked for Claude's cache: %s", raw)
			}
			for _, m := range req.Messages {
				for _, b := range m.Content {
					if b["cache_control"] != nil {
						marked++
					}
				}
			}
			if marked == 0 {
				t.Errorf("no message block marked (opencode marked the tool result and the last user turn): %s", raw)
			}
		})
	}
	// In a tool loop the last two non-system messages are the assistant's
	// call and its result: applyCaching marks the assistant's last content
	// part, a tool call, whose metadata the converter spreads onto the
	// tool_calls entry (`...partMetadata`), and the tool message.
	t.Run("tool-loop", func(t *testing.T) {
		fs := r40gTextFakes(t)
		g := start(t, clientsCfg, fs)
		body := `{"model":"via-claude","max_tokens":32000,"messages":[
  {"role":"system","content":"You are opencode.","cache_control":{"type":"ephemeral"}},
  {"role":"user","content":"list the files"},
  {"role":"assistant","content":"Listing.","tool_calls":[{"id":"call_1","type":"function","function":{"name":"bash","arguments":"{\"command\":\"ls\"}"},"cache_control":{"type":"ephemeral"}}]},
  {"role":"tool","tool_call_id":"call_1","content":"a.go","cache_control":{"type":"ephemeral"}}],
 "tools":[{"type":"function","function":{"name":"bash","parameters":{"type":"object","properties":{"command":{"type":"string"}}}}}]}`
		c50aPost(t, g, body, false)
		if raw := lastRaw(t, fs["anthropic"]); strings.Count(string(raw), `"cache_control"`) != 3 {
			t.Errorf("want the system prompt, the tool_use and the tool_result marked: %s", raw)
		}
	})
	// Control: the same marks on content parts are kept (review 41h).
	t.Run("part-level-control", func(t *testing.T) {
		fs := r40gTextFakes(t)
		g := start(t, clientsCfg, fs)
		body := `{"model":"via-claude","messages":[{"role":"system","content":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral"}}]},{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`
		c50aPost(t, g, body, false)
		if raw := lastRaw(t, fs["anthropic"]); strings.Count(string(raw), `"cache_control"`) != 2 {
			t.Errorf("part-level marks not both kept: %s", raw)
		}
	})
}

// c50aOpencodeHistory is opencode's second step after a tool call on a
// model with interleaved reasoning (models.dev `interleaved.field`
// "reasoning_content"): transform.ts normalizeMessages moves the reasoning
// parts to providerOptions.openaiCompatible.reasoning_content, and the
// converter writes the assistant turn as `content: text || null`,
// `reasoning_content`, `tool_calls`, each call carrying
// `extra_content.google.thought_signature` when the call came with one
// (convert-to-openai-compatible-chat-messages.ts). Goose writes the same
// fields (block/goose crates/goose/src/providers/formats/openai.rs
// format_messages: `reasoning_content` when non-empty, `content: null`
// beside tool_calls, a call's metadata merged into the call object), and
// for a tool that returned an image a placeholder tool text followed by a
// user message holding the image.
const c50aOpencodeHistory = `{"model":%q,"stream":%v,"stream_options":{"include_usage":true},
 "reasoning_effort":"high","max_completion_tokens":8192,"max_tokens":8192,
 "messages":[
  {"role":"developer","content":"You are a coding agent."},
  {"role":"user","content":"take a screenshot and tell me what is on it","name":"alice"},
  {"role":"assistant","content":null,"reasoning_content":"I should call the screenshot tool.","reasoning":"I should call the screenshot tool.","reasoning_details":[{"type":"reasoning.text","text":"I should call the screenshot tool.","format":"unknown","index":0}],
   "tool_calls":[{"id":"call_1","type":"function","function":{"name":"screenshot","arguments":"{}"},"extra_content":{"google":{"thought_signature":"CiQB0e2Kb1"}}}]},
  {"role":"tool","tool_call_id":"call_1","content":"This tool result included an image that is uploaded in the next message."},
  {"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==","detail":"high"}}]}
 ],
 "tools":[{"type":"function","function":{"name":"screenshot","description":"Take a screenshot","parameters":{"type":"object","properties":{}}}}],
 "parallel_tool_calls":false}`

// The history fields reasoning agents send back, and a tool image sent as
// the next user message, reach each vendor in a shape it takes: Claude
// gets no unsigned thinking block (Anthropic refuses one it did not sign),
// the call, its result, then the image; Gemini the call and its response.
func TestC50aReasoningHistoryAndToolImage(t *testing.T) {
	for _, rt := range r40gRoutes {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", rt.route, stream), func(t *testing.T) {
				fs := r40gTextFakes(t)
				g := start(t, clientsCfg, fs)
				c50aPost(t, g, fmt.Sprintf(c50aOpencodeHistory, rt.route, stream), stream)
				raw := string(lastRaw(t, fs[rt.upstream]))
				switch rt.upstream {
				case "anthropic":
					if strings.Contains(raw, `"thinking"`) {
						t.Errorf("Claude got a thinking block or setting it did not ask for: %s", raw)
					}
					for _, want := range []string{`"tool_use"`, `"tool_result"`, `"image"`, `"disable_parallel_tool_use":true`} {
						if !strings.Contains(raw, want) {
							t.Errorf("Claude request lacks %s: %s", want, raw)
						}
					}
				case "gemini":
					for _, want := range []string{`"functionCall"`, `"functionResponse"`, `"inlineData"`} {
						if !strings.Contains(raw, want) {
							t.Errorf("Gemini request lacks %s: %s", want, raw)
						}
					}
				}
			})
		}
	}
}

// c50aMembers is a chat request carrying the newer members coding agents
// and chat UIs set, each from a named client:
//   - Continue (core/llm/llms/OpenAI.ts _convertArgs): `prediction` for its
//     apply edits, `max_tokens`, `stream_options`;
//   - Zed (crates/open_ai/src/open_ai.rs Request): `prompt_cache_key`,
//     `parallel_tool_calls`, `reasoning_effort`, `max_completion_tokens`;
//   - the openai SDKs' newer members agents pass through (`verbosity`,
//     `safety_identifier`, `store`, `metadata`, `service_tier`,
//     `modalities: ["text"]`, `logprobs: false`, `top_logprobs: 0`, `n: 1`);
//   - Roo/Kilo's OpenRouter-style `reasoning` object and Aider's
//     (LiteLLM extra params) `thinking`, which an OpenAI-compatible door
//     receives as unknown members.
//
// docs/doors.md lists each as not sent to Claude and Gemini (or, for
// `n: 1`, `logprobs: false`, `top_logprobs: 0`, as asking nothing).
const c50aMembers = `{"model":%q,"stream":%v,"stream_options":{"include_usage":true},
 "messages":[{"role":"system","content":"Be brief."},{"role":"user","content":[{"type":"text","text":"hi"},{"type":"image_url","image_url":{"url":"https://example.com/cat.png","detail":"low"}}]}],
 "prediction":{"type":"content","content":"package main"},
 "max_tokens":1024,"max_completion_tokens":2048,
 "prompt_cache_key":"zed-thread-1","parallel_tool_calls":false,"reasoning_effort":"minimal",
 "verbosity":"low","safety_identifier":"u-1","store":false,"metadata":{"session":"s1"},"service_tier":"auto",
 "modalities":["text"],"logprobs":false,"top_logprobs":0,"n":1,
 "reasoning":{"effort":"high","exclude":false},"thinking":{"type":"enabled","budget_tokens":2048},
 "response_format":{"type":"text"},"temperature":0.2,"user":"alice@example.com"}`

func TestC50aNewerMembersToEveryVendor(t *testing.T) {
	for _, rt := range r40gRoutes {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", rt.route, stream), func(t *testing.T) {
				fs := r40gTextFakes(t)
				g := start(t, clientsCfg, fs)
				c50aPost(t, g, fmt.Sprintf(c50aMembers, rt.route, stream), stream)
				raw := string(lastRaw(t, fs[rt.upstream]))
				switch rt.upstream {
				case "anthropic":
					var req struct {
						MaxTokens int             `json:"max_tokens"`
						Thinking  json.RawMessage `json:"thinking"`
					}
					_ = json.Unmarshal([]byte(raw), &req)
					if req.MaxTokens != 2048 {
						t.Errorf("max_tokens = %d, want max_completion_tokens 2048 (OpenAI: max_tokens is deprecated in its favour)", req.MaxTokens)
					}
					if req.Thinking != nil {
						t.Errorf("Claude got thinking: %s", raw)
					}
				case "gemini":
					if !strings.Contains(raw, `"maxOutputTokens":2048`) {
						t.Errorf("Gemini maxOutputTokens not 2048: %s", raw)
					}
				}
			})
		}
	}
}

// c50aGeminiTwo is a generateContent answer of two candidates, as Gemini
// answers candidateCount 2 (googleapis/nodejs-vertexai
// src/functions/test/test_data.ts shapes: the first candidate's index 0
// omitted by proto3 JSON).
const c50aGeminiTwo = `{"candidates":[{"content":{"role":"model","parts":[{"text":"one"}]},"finishReason":"STOP"},{"content":{"role":"model","parts":[{"text":"two"}]},"finishReason":"STOP","index":1}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":2,"totalTokenCount":7},"modelVersion":"gemini-2.5-flash"}`

// Open WebUI's and LangChain's `n` (ChatOpenAI(n=2)): two choices, indexes
// 0 and 1, from a Gemini target.
func TestC50aGeminiTwoChoices(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"gemini":    strictGemini(c50aGeminiTwo),
		"anthropic": strictAnthropic(anthropicMessage("claude-sonnet-4-5", "x")),
		"openai":    upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "x")}),
	})
	g := start(t, clientsCfg, fs)
	r := c50aPost(t, g, `{"model":"via-gem","n":2,"messages":[{"role":"user","content":"hi"}]}`, false)
	var a struct {
		Choices []struct {
			Index   int `json:"index"`
			Message struct {
				Content string `json:"content"`
			} `json:"message"`
		} `json:"choices"`
	}
	_ = json.Unmarshal(r.Body, &a)
	if len(a.Choices) != 2 || a.Choices[0].Index != 0 || a.Choices[1].Index != 1 || a.Choices[0].Message.Content != "one" || a.Choices[1].Message.Content != "two" {
		t.Errorf("choices: %s", r.Body)
	}
	if !strings.Contains(string(lastRaw(t, fs["gemini"])), `"candidateCount":2`) {
		t.Errorf("no candidateCount 2: %s", lastRaw(t, fs["gemini"]))
	}
}

// A request-root `cache_control` on a chat request: Anthropic's automatic
// prompt caching ("When set at the top level, the system automatically
// applies cache breakpoints to the last cacheable block in the request",
// OpenRouter's AnthropicCacheControlDirective,
// https://openrouter.ai/docs/client-sdks/python/components/anthropiccachecontroldirective).
// OpenAI-compatible clients in front of Claude send it so: a VS Code BYOK
// provider extension over LiteLLM ("All that was needed was a request-root
// "cache_control": {"type":"ephemeral"} on the OpenAI-compatible payload",
// microsoft/vscode#312940, 90% cache reads over 70 turns). At a Claude
// target it means the same; Detour's Messages door already passes it to
// Anthropic as sent.
func TestC50aRootCacheControlToClaude(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			fs := r40gTextFakes(t)
			g := start(t, clientsCfg, fs)
			body := fmt.Sprintf(`{"model":"via-claude","stream":%v,"cache_control":{"type":"ephemeral"},
 "messages":[{"role":"system","content":"You are a coding assistant."},{"role":"user","content":"hi"},{"role":"assistant","content":"hello"},{"role":"user","content":"explain main.go"}]}`, stream)
			c50aPost(t, g, body, stream)
			raw := lastRaw(t, fs["anthropic"])
			if !strings.Contains(string(raw), `"cache_control"`) {
				t.Errorf("Claude got no cache_control (neither top-level nor on a block): %s", raw)
			}
		})
	}
}
