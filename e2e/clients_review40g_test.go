package e2e

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 40g: request shapes of more real clients (Roo Code, Continue,
// Open WebUI, Aider through LiteLLM, LangChain Python, the OpenAI Python
// SDK's parse helper), replayed through a real gateway to an upstream of
// each dialect, each answer read by the rules of that client's parser.
// Every request names its source; nothing in them is invented.

// r40gStrict wraps a scripted answer with the vendor's own refusals
// (vendor_rules_test.go): a translation the vendor would refuse fails here
// as it would in production.
func r40gStrict(dialect string, step upstreamtest.Step) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var msg string
		switch dialect {
		case "anthropic":
			if msg = anthropicRefuses(r.Body); msg != "" {
				b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": msg}})
				return upstreamtest.Step{Status: 400, Body: string(b)}
			}
		case "gemini":
			if msg = geminiRefuses(r.Body); msg != "" {
				b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 400, "message": msg, "status": "INVALID_ARGUMENT"}})
				return upstreamtest.Step{Status: 400, Body: string(b)}
			}
		}
		return step
	}
}

// r40gToolFakes answer every call with a streamed call of get_weather, in
// each vendor's own stream (accumulate_test.go's fixtures: OpenAI's
// function-calling guide, anthropic-sdk-python's tool_use stream, the
// Gemini API docs' function call).
func r40gToolFakes(t *testing.T) map[string]*upstreamtest.Server {
	return fakes(t, map[string]upstreamtest.Script{
		"openai":    r40gStrict("openai", upstreamtest.Step{Events: openAIToolStream("")}),
		"anthropic": r40gStrict("anthropic", upstreamtest.Step{Events: toolOnly(sseBlocks(string(testdata(t, "anthropic", "stream/tool_use.sse"))))}),
		"gemini":    r40gStrict("gemini", upstreamtest.Step{Events: []string{geminiTemperatureCall}}),
	})
}

// r40gTextFakes answer every call with text, whole or streamed as asked.
func r40gTextFakes(t *testing.T) map[string]*upstreamtest.Server {
	both := func(whole string, events []string) upstreamtest.Step {
		return upstreamtest.Step{Body: whole, Events: events}
	}
	pick := func(dialect string, whole string, events []string) upstreamtest.Script {
		return func(n int, r upstreamtest.Request) upstreamtest.Step {
			step := both(whole, nil)
			if r.Streamed() || strings.Contains(r.Path, "stream") {
				step = both("", events)
			}
			return r40gStrict(dialect, step)(n, r)
		}
	}
	return fakes(t, map[string]upstreamtest.Script{
		"openai":    pick("openai", upstreamtest.ChatJSON("gpt-4o-mini", "hello there"), upstreamtest.ChatStream("gpt-4o-mini", "hello ", "there")),
		"anthropic": pick("anthropic", anthropicMessage("claude-sonnet-4-5", "hello there"), anthropicEvents("claude-sonnet-4-5", "hello ", "there")),
		"gemini":    pick("gemini", geminiText("hello there"), []string{geminiText("hello there")}),
	})
}

var r40gRoutes = []struct{ route, upstream string }{{"via-gpt", "openai"}, {"via-claude", "anthropic"}, {"via-gem", "gemini"}}

// r40gChunk is a chat.completion.chunk as the clients below read it.
type r40gChunk struct {
	raw     map[string]any
	Choices []struct {
		Index *int `json:"index"`
		Delta *struct {
			Content          *string `json:"content"`
			ReasoningContent *string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    *int    `json:"index"`
				ID       *string `json:"id"`
				Type     *string `json:"type"`
				Function *struct {
					Name      *string `json:"name"`
					Arguments *string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     *int `json:"prompt_tokens"`
		CompletionTokens *int `json:"completion_tokens"`
		TotalTokens      *int `json:"total_tokens"`
	} `json:"usage"`
}

// r40gChunks parses every data line of a chat stream but [DONE], failing
// on one that is not JSON or is an error event, and reports whether the
// stream ended with [DONE].
func r40gChunks(t *testing.T, body []byte) (chunks []r40gChunk, done bool) {
	t.Helper()
	for _, line := range strings.Split(string(body), "\n") {
		data, ok := strings.CutPrefix(line, "data:")
		if !ok {
			continue
		}
		data = strings.TrimSpace(data)
		if data == "[DONE]" {
			done = true
			continue
		}
		var c r40gChunk
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("chunk is not JSON: %v: %s", err, data)
		}
		_ = json.Unmarshal([]byte(data), &c.raw)
		if _, isErr := c.raw["error"]; isErr {
			t.Fatalf("stream carries an error: %s", data)
		}
		chunks = append(chunks, c)
	}
	return chunks, done
}

// r40gLangChainReads checks a chat stream as langchain-openai's
// _convert_chunk_to_generation_chunk reads it: chunk.get("choices") (a
// usage chunk may have none), then choices[0]["delta"] — a choice
// without a delta member is a KeyError — and usage read with .get.
func r40gLangChainReads(t *testing.T, chunks []r40gChunk) {
	t.Helper()
	for _, c := range chunks {
		choices, _ := c.raw["choices"].([]any)
		for _, ch := range choices {
			m, _ := ch.(map[string]any)
			if _, ok := m["delta"]; !ok {
				t.Errorf("LangChain reads choice[\"delta\"]: a choice without one is a KeyError: %v", c.raw)
			}
		}
	}
}

// r40gRooCode is Roo Code's OpenAI-compatible request in a tool loop
// (RooCodeInc/Roo-Code src/api/providers/openai.ts createMessage, with a
// custom model whose supportsPromptCache is set): the system prompt as one
// text part with cache_control, cache_control on the last text part of the
// last two user messages, temperature 0 (its default), stream_options,
// tool_choice "auto" and
// parallel_tool_calls true (src/core/task/Task.ts), tools made strict by base-provider.ts
// convertToolsForOpenAI (additionalProperties false, every property
// required; an MCP tool, named mcp--server--tool, left not strict). The
// history comes from src/api/transform/openai-format.ts
// convertToOpenAiMessages: an assistant turn of tool calls has content "",
// a tool result with no text is "(empty)", tool results come before the
// user's text.
const r40gRooCode = `{"model":%q,"temperature":0,"stream":true,"stream_options":{"include_usage":true},"tool_choice":"auto","parallel_tool_calls":true,
 "tools":[
  {"type":"function","function":{"name":"get_weather","description":"Get the weather","strict":true,"parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"],"additionalProperties":false}}},
  {"type":"function","function":{"name":"mcp--weather--alerts","description":"Weather alerts","strict":false,"parameters":{"type":"object","properties":{"state":{"type":["string","null"]}}}}}
 ],
 "messages":[
  {"role":"system","content":[{"type":"text","text":"You are Roo, a highly skilled software engineer.","cache_control":{"type":"ephemeral"}}]},
  {"role":"user","content":[{"type":"text","text":"<task>\nweather in Paris\n</task>"},{"type":"text","text":"<environment_details>\n# Current Time\n</environment_details>","cache_control":{"type":"ephemeral"}}]},
  {"role":"assistant","content":"","tool_calls":[{"id":"call_roo_1","type":"function","function":{"name":"mcp--weather--alerts","arguments":"{\"state\":\"IDF\"}"}}]},
  {"role":"tool","tool_call_id":"call_roo_1","content":"(empty)"},
  {"role":"user","content":[{"type":"text","text":"<environment_details>\n# Current Time\n</environment_details>","cache_control":{"type":"ephemeral"}}]}
 ]}`

// Roo Code users on a route of any vendor rely on its tool loop: the
// request above is taken by every upstream, and the answer's call reaches
// Roo as its stream handler (openai.ts processToolCalls) reads it: the
// first delta of a call carries its id and name, finish_reason
// "tool_calls" closes the calls, and a chunk's usage gives
// prompt_tokens and completion_tokens.
func TestReview40gRooCodeToolLoop(t *testing.T) {
	fs := r40gToolFakes(t)
	g := start(t, clientsCfg, fs)
	for _, c := range r40gRoutes {
		body := strings.Replace(r40gRooCode, "%q", `"`+c.route+`"`, 1)
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key",
			"HTTP-Referer", "https://github.com/RooVetGit/Roo-Cline", "X-Title", "Roo Code")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		chunks, done := r40gChunks(t, r.Body)
		if !done {
			t.Errorf("%s: no [DONE]", c.route)
		}
		r40gLangChainReads(t, chunks)
		ids := map[int]string{}
		var finish string
		var usage bool
		for _, ch := range chunks {
			for _, choice := range ch.Choices {
				if choice.FinishReason != nil {
					finish = *choice.FinishReason
				}
				if choice.Delta == nil {
					continue
				}
				for _, tc := range choice.Delta.ToolCalls {
					if tc.Index == nil {
						t.Fatalf("%s: a tool call delta without index: %v", c.route, ch.raw)
					}
					if _, seen := ids[*tc.Index]; !seen {
						if tc.ID == nil || *tc.ID == "" || tc.Function == nil || tc.Function.Name == nil || *tc.Function.Name == "" {
							t.Errorf("%s: a call's first delta without id and name: %v", c.route, ch.raw)
						}
						if tc.ID != nil {
							ids[*tc.Index] = *tc.ID
						}
					}
				}
			}
			if ch.Usage != nil && ch.Usage.PromptTokens != nil && ch.Usage.CompletionTokens != nil {
				usage = true
			}
		}
		if len(ids) != 1 || finish != "tool_calls" || !usage {
			t.Errorf("%s: calls %v, finish %q, usage %v: %s", c.route, ids, finish, usage, r.Body)
		}
		reqs := fs[c.upstream].Requests()
		up := string(reqs[len(reqs)-1].Body)
		for _, want := range []string{"You are Roo", "(empty)", "mcp--weather--alerts", "get_weather"} {
			if !strings.Contains(up, want) {
				t.Errorf("%s got %s, want %q in it", c.upstream, up, want)
			}
		}
		// Roo marks its prompt for Claude's cache: Claude gets the three
		// marks (system, and each of the last two user turns), or every
		// turn pays the whole prompt again.
		if n := strings.Count(up, `"cache_control":{"type":"ephemeral"}`); c.upstream == "anthropic" && n != 3 {
			t.Errorf("Claude got %d cache breakpoints, want Roo's 3: %s", n, up)
		}
	}
}

// r40gContinue is Continue's chat request in agent mode through an
// OpenAI-compatible provider (continuedev/continue core/llm/
// openaiTypeConverters.ts toChatBody and toChatMessage, packages/
// openai-adapters/src/apis/OpenAI.ts modifyChatBody): max_tokens, stream
// with stream_options.include_usage, an image part with detail "auto", an
// assistant turn of tool calls whose content is " " ("LM Studio (and other
// providers) don't accept empty content"), a tool message.
const r40gContinue = `{"messages":[
  {"role":"system","content":"<important_rules>\nYou are in agent mode.\n</important_rules>"},
  {"role":"user","content":[{"type":"text","text":"what city is on this picture?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBORw0KGgo=","detail":"auto"}}]},
  {"role":"assistant","content":" ","tool_calls":[{"id":"call_cont_1","type":"function","function":{"name":"read_file","arguments":"{\"filepath\":\"notes.md\"}"}}]},
  {"role":"tool","content":"The picture is of Paris.","tool_call_id":"call_cont_1"}
 ],"model":%q,"max_tokens":4096,"stream":true,"stream_options":{"include_usage":true},
 "tools":[{"type":"function","function":{"name":"read_file","description":"Use this tool to read the contents of an existing file.","parameters":{"type":"object","required":["filepath"],"properties":{"filepath":{"type":"string","description":"The path of the file to read"}}}}},
          {"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}]}`

// Continue users rely on agent mode through Detour to any vendor: its
// request (whitespace content beside tool calls, an image with detail
// auto) is taken by each upstream, and the streamed call comes back whole.
func TestReview40gContinueAgent(t *testing.T) {
	fs := r40gToolFakes(t)
	g := start(t, clientsCfg, fs)
	for _, c := range r40gRoutes {
		body := strings.Replace(r40gContinue, "%q", `"`+c.route+`"`, 1)
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key", "x-api-key", "client-key")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		chunks, _ := r40gChunks(t, r.Body)
		var name, finish string
		for _, ch := range chunks {
			for _, choice := range ch.Choices {
				if choice.FinishReason != nil {
					finish = *choice.FinishReason
				}
				if choice.Delta != nil {
					for _, tc := range choice.Delta.ToolCalls {
						if tc.Function != nil && tc.Function.Name != nil {
							name += *tc.Function.Name
						}
					}
				}
			}
		}
		if name == "" || finish != "tool_calls" {
			t.Errorf("%s: call %q finish %q: %s", c.route, name, finish, r.Body)
		}
		reqs := fs[c.upstream].Requests()
		if up := string(reqs[len(reqs)-1].Body); !strings.Contains(up, "iVBORw0KGgo=") || !strings.Contains(up, "The picture is of Paris.") {
			t.Errorf("%s got %s, want the image and the tool result", c.upstream, up)
		}
	}
}

// r40gOpenWebUI is what Open WebUI's backend sends for a chat with a
// model whose advanced parameters are set (open-webui backend/open_webui/
// routers/openai.py generate_chat_completion: the form data less
// "metadata", max_completion_tokens renamed max_tokens for a base URL that
// is not api.openai.com; utils/payload.py apply_model_params_to_body_openai:
// temperature, top_p, max_tokens, frequency_penalty, seed, stop as a
// list) with usage on (stream_options.include_usage).
const r40gOpenWebUI = `{"stream":true,"model":%q,"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"Hello!"}],
 "temperature":0.8,"top_p":0.9,"max_tokens":1024,"frequency_penalty":0.1,"seed":42,"stop":["<|im_end|>","\n\nUser:"],"stream_options":{"include_usage":true}}`

// Open WebUI users rely on chats through Detour to any vendor: the
// request with the model's advanced parameters is taken, the stream ends
// with [DONE] after a usage chunk, and the user's name and email that Open
// WebUI forwards in X-OpenWebUI-User-* headers (ENABLE_FORWARD_USER_INFO_HEADERS)
// reach no upstream. Its title generation (stream false) reads
// choices[0].message.content.
func TestReview40gOpenWebUIChat(t *testing.T) {
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	for _, c := range r40gRoutes {
		body := strings.Replace(r40gOpenWebUI, "%q", `"`+c.route+`"`, 1)
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key",
			"X-OpenWebUI-User-Name", "Ada Lovelace", "X-OpenWebUI-User-Id", "u-1", "X-OpenWebUI-User-Email", "ada@example.com", "X-OpenWebUI-User-Role", "user", "X-OpenWebUI-Chat-Id", "chat-1")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		chunks, done := r40gChunks(t, r.Body)
		var text strings.Builder
		usage := false
		for _, ch := range chunks {
			for _, choice := range ch.Choices {
				if choice.Delta != nil && choice.Delta.Content != nil {
					text.WriteString(*choice.Delta.Content)
				}
			}
			usage = usage || ch.Usage != nil
		}
		if !done || !usage || text.String() != "hello there" {
			t.Errorf("%s: done %v usage %v text %q: %s", c.route, done, usage, text.String(), r.Body)
		}
		reqs := fs[c.upstream].Requests()
		last := reqs[len(reqs)-1]
		for k := range last.Header {
			if strings.HasPrefix(strings.ToLower(k), "x-openwebui") {
				t.Errorf("%s got the client's header %s", c.upstream, k)
			}
		}
		if strings.Contains(string(last.Body), "ada@example.com") {
			t.Errorf("%s got the user's email: %s", c.upstream, last.Body)
		}

		title := `{"model":"` + c.route + `","messages":[{"role":"user","content":"Generate a concise, 3-5 word title for the chat."}],"stream":false,"max_tokens":1000}`
		r = g.raw(t, http.MethodPost, "/v1/chat/completions", title, "Authorization", "Bearer client-key")
		if got, _ := r.content(t); r.Status != 200 || got != "hello there" {
			t.Errorf("%s title: %d %s", c.route, r.Status, r.Body)
		}
	}
}

// r40gAider is Aider's request with --cache-prompts through LiteLLM's
// openai/ provider (Aider-AI/aider aider/models.py send_completion: model,
// stream, temperature 0; aider/coders/chat_chunks.py add_cache_control:
// the last message of the system, repo-map and chat-files chunks becomes a
// list of one text part with cache_control, the last of them the
// assistant's "Ok" turn).
const r40gAider = `{"model":%q,"stream":true,"temperature":0,"messages":[
  {"role":"system","content":[{"type":"text","text":"Act as an expert software developer.\nAlways use best practices when coding.","cache_control":{"type":"ephemeral"}}]},
  {"role":"user","content":"I have *added these files to the chat* so you can go ahead and edit them.\n\nhello.py\n` + "```" + `\nprint('hi')\n` + "```" + `"},
  {"role":"assistant","content":[{"type":"text","text":"Ok, any changes I propose will be to those files.","cache_control":{"type":"ephemeral"}}]},
  {"role":"user","content":"make it say hello"}
 ]}`

// Aider users with prompt caching on rely on every turn being taken: an
// assistant turn whose content is a list of text parts (with
// cache_control) reaches each vendor as the assistant's text.
func TestReview40gAiderCachedPrompt(t *testing.T) {
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	for _, c := range r40gRoutes {
		body := strings.Replace(r40gAider, "%q", `"`+c.route+`"`, 1)
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		if text, done, errEv := r.streamed(t); text != "hello there" || !done || errEv {
			t.Errorf("%s: %q done %v error %v: %s", c.route, text, done, errEv, r.Body)
		}
		reqs := fs[c.upstream].Requests()
		if up := string(reqs[len(reqs)-1].Body); !strings.Contains(up, "Ok, any changes I propose will be to those files.") || !strings.Contains(up, "Act as an expert") {
			t.Errorf("%s got %s, want the system prompt and the assistant's turn", c.upstream, up)
		}
	}
}

// r40gLangChain is langchain-openai's ChatOpenAI request after a tool
// round trip with streaming and stream_usage on (langchain-ai/langchain
// libs/partners/openai/langchain_openai/chat_models/base.py:
// _convert_message_to_dict writes an AIMessage of tool calls with content
// null, a ToolMessage as role tool; _stream adds
// stream_options {"include_usage": true} when stream_usage is set; older
// versions also send n 1 and temperature 0.7 by default).
const r40gLangChain = `{"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What is the weather in Paris?"},
 {"role":"assistant","content":null,"tool_calls":[{"type":"function","id":"call_lc_1","function":{"name":"get_weather","arguments":"{\"location\": \"Paris\"}"}}]},
 {"role":"tool","content":"18 degrees and sunny","tool_call_id":"call_lc_1"}],
 "model":%q,"stream":%v,"n":1,"temperature":0.7,%s
 "tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather for a city.","parameters":{"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"}}}]}`

// LangChain Python users rely on ChatOpenAI through Detour to any vendor:
// streamed (every choice of every chunk has a delta, the usage chunk
// arrives) and whole (choices[].message and finish_reason).
func TestReview40gLangChainPythonChat(t *testing.T) {
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	for _, c := range r40gRoutes {
		for _, stream := range []bool{true, false} {
			opts := ``
			if stream {
				opts = `"stream_options":{"include_usage":true},`
			}
			body := strings.NewReplacer("%q", `"`+c.route+`"`, "%v", map[bool]string{true: "true", false: "false"}[stream], "%s", opts).Replace(r40gLangChain)
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key")
			if r.Status != 200 {
				t.Fatalf("%s stream=%v: %d %s", c.route, stream, r.Status, r.Body)
			}
			if !stream {
				var whole struct {
					Choices []struct {
						Message *struct {
							Role    string  `json:"role"`
							Content *string `json:"content"`
						} `json:"message"`
						FinishReason *string `json:"finish_reason"`
					} `json:"choices"`
				}
				if err := json.Unmarshal(r.Body, &whole); err != nil || len(whole.Choices) != 1 || whole.Choices[0].Message == nil ||
					whole.Choices[0].Message.Content == nil || *whole.Choices[0].Message.Content != "hello there" || whole.Choices[0].FinishReason == nil {
					t.Errorf("%s whole: %v %s", c.route, err, r.Body)
				}
				continue
			}
			chunks, done := r40gChunks(t, r.Body)
			r40gLangChainReads(t, chunks)
			usage := false
			for _, ch := range chunks {
				usage = usage || ch.Usage != nil && ch.Usage.TotalTokens != nil
			}
			if !done || !usage {
				t.Errorf("%s: done %v usage %v: %s", c.route, done, usage, r.Body)
			}
		}
	}
}

// r40gLangChainResponses is langchain-openai's ChatOpenAI with
// use_responses_api=True after a tool round trip (base.py
// _construct_responses_api_payload: messages become input items — system
// and user as role messages, the AIMessage's tool call a function_call
// item with its fc_ id, the ToolMessage a function_call_output — and
// tools are flattened).
const r40gLangChainResponses = `{"model":%q,"stream":true,
 "input":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What is the weather in Paris?"},
  {"type":"function_call","name":"get_weather","arguments":"{\"location\": \"Paris\"}","call_id":"call_lc_1","id":"fc_lc_1"},
  {"type":"function_call_output","call_id":"call_lc_1","output":"18 degrees and sunny"}],
 "tools":[{"type":"function","name":"get_weather","description":"Get the weather for a city.","parameters":{"properties":{"location":{"type":"string"}},"required":["location"],"type":"object"}}]}`

// LangChain Python users of use_responses_api rely on the stream's events
// carrying what _convert_responses_chunk_to_generation_chunk reads by
// attribute: output_index, content_index and item_id on text deltas,
// output_index and item_id on argument deltas, output_index and item on
// output_item.added (a function_call with call_id and name), and a response with usage
// (input and output token details objects) on response.completed.
func TestReview40gLangChainPythonResponses(t *testing.T) {
	for _, tools := range []bool{false, true} {
		fs := r40gTextFakes(t)
		if tools {
			fs = r40gToolFakes(t)
		}
		g := start(t, clientsCfg, fs)
		for _, c := range r40gRoutes {
			body := strings.Replace(r40gLangChainResponses, "%q", `"`+c.route+`"`, 1)
			r := g.raw(t, http.MethodPost, "/v1/responses", body, "Authorization", "Bearer client-key")
			if r.Status != 200 {
				t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
			}
			var text, args strings.Builder
			completed := false
			for _, ev := range r.events() {
				var m map[string]any
				if err := json.Unmarshal([]byte(ev.Data), &m); err != nil {
					t.Fatalf("%s: event %s: %v", c.route, ev.Data, err)
				}
				need := map[string][]string{
					"response.output_text.delta":             {"output_index", "content_index", "item_id", "delta"},
					"response.function_call_arguments.delta": {"output_index", "item_id", "delta"},
					"response.output_item.added":             {"output_index", "item"},
					"response.output_item.done":              {"output_index", "item"},
					"response.completed":                     {"response"},
				}[m["type"].(string)]
				for _, k := range need {
					if _, ok := m[k]; !ok {
						t.Errorf("%s: %s without %s: %s", c.route, m["type"], k, ev.Data)
					}
				}
				switch m["type"] {
				case "response.output_text.delta":
					s, _ := m["delta"].(string)
					text.WriteString(s)
				case "response.function_call_arguments.delta":
					s, _ := m["delta"].(string)
					args.WriteString(s)
				case "response.output_item.added":
					if item, _ := m["item"].(map[string]any); item["type"] == "function_call" && (item["call_id"] == "" || item["name"] == "") {
						t.Errorf("%s: a function_call item without call_id or name: %s", c.route, ev.Data)
					}
				case "response.completed":
					completed = true
					resp, _ := m["response"].(map[string]any)
					u, _ := resp["usage"].(map[string]any)
					_, in := u["input_tokens_details"].(map[string]any)
					_, out := u["output_tokens_details"].(map[string]any)
					if !in || !out {
						t.Errorf("%s: usage %v", c.route, u)
					}
				}
			}
			var parsed map[string]any
			if !completed || !tools && text.String() != "hello there" || tools && json.Unmarshal([]byte(args.String()), &parsed) != nil {
				t.Errorf("%s tools=%v: completed %v text %q arguments %q: %s", c.route, tools, completed, text.String(), args.String(), r.Body)
			}
		}
	}
}

// r40gParse is what the OpenAI Python SDK's chat.completions.parse sends
// for a pydantic model (openai-python src/openai/lib/_parsing/
// _completions.py type_to_response_format_param: json_schema named after
// the class, strict true, the schema from to_strict_json_schema with
// additionalProperties false), with a pydantic_function_tool (strict).
const r40gParse = `{"messages":[{"role":"system","content":"Extract the event information."},{"role":"user","content":"Alice and Bob are going to a science fair on Friday."}],"model":%q,
 "response_format":{"type":"json_schema","json_schema":{"schema":{"properties":{"name":{"title":"Name","type":"string"},"date":{"title":"Date","type":"string"},"participants":{"items":{"type":"string"},"title":"Participants","type":"array"}},"required":["name","date","participants"],"title":"CalendarEvent","type":"object","additionalProperties":false},"name":"CalendarEvent","strict":true}},
 "tools":[{"type":"function","function":{"name":"lookup_date","strict":true,"parameters":{"properties":{"day":{"title":"Day","type":"string"}},"required":["day"],"title":"lookup_date","type":"object","additionalProperties":false}}}]}`

// The event r40gParse asks for, as each vendor answers it: OpenAI and
// Gemini as text, Claude as the forced answer tool (docs/doors.md,
// "Structured output on Claude targets").
const r40gEvent = `{"name":"science fair","date":"Friday","participants":["Alice","Bob"]}`

// Users of the OpenAI Python SDK's parse helper rely on an answer it can
// parse: _parse_chat_completion raises on finish_reason "length" or
// "content_filter", and parses message.content into the model, so the
// answer through every vendor is a choice whose finish_reason is "stop"
// and whose content is the JSON object, with no tool call beside it.
func TestReview40gPythonParse(t *testing.T) {
	claude, _ := json.Marshal(map[string]any{"id": "msg_parse", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
		"content":     []any{map[string]any{"type": "tool_use", "id": "toolu_parse", "name": "detour_json_answer", "input": json.RawMessage(r40gEvent)}},
		"stop_reason": "tool_use", "usage": map[string]any{"input_tokens": 30, "output_tokens": 20}})
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", r40gEvent)}),
		"anthropic": r40gStrict("anthropic", upstreamtest.Step{Body: string(claude)}),
		"gemini":    r40gStrict("gemini", upstreamtest.Step{Body: geminiText(r40gEvent)}),
	})
	g := start(t, clientsCfg, fs)
	for _, c := range r40gRoutes {
		body := strings.Replace(r40gParse, "%q", `"`+c.route+`"`, 1)
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer client-key", "X-Stainless-Helper-Method", "chat.completions.parse")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		var whole struct {
			Choices []struct {
				Message struct {
					Content   *string `json:"content"`
					Refusal   *string `json:"refusal"`
					ToolCalls []any   `json:"tool_calls"`
				} `json:"message"`
				FinishReason string `json:"finish_reason"`
			} `json:"choices"`
		}
		if err := json.Unmarshal(r.Body, &whole); err != nil || len(whole.Choices) != 1 {
			t.Fatalf("%s: %v %s", c.route, err, r.Body)
		}
		ch := whole.Choices[0]
		var event struct {
			Name         string   `json:"name"`
			Date         string   `json:"date"`
			Participants []string `json:"participants"`
		}
		if ch.FinishReason != "stop" || ch.Message.Content == nil || json.Unmarshal([]byte(*ch.Message.Content), &event) != nil ||
			event.Name != "science fair" || len(event.Participants) != 2 || len(ch.Message.ToolCalls) != 0 || ch.Message.Refusal != nil && *ch.Message.Refusal != "" {
			t.Errorf("%s: the parse helper cannot read %s", c.route, r.Body)
		}
	}
}

// r40gEmbedCfg has an embeddings route per dialect.
const r40gEmbedCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: small, model: text-embedding-3-small, providers: [openai]}
  - {name: gem, model: gemini-embedding-001, providers: [gemini]}
routes:
  - {name: vec-gpt, targets: [small]}
  - {name: vec-gem, targets: [gem]}
`

// The embeddings calls of these clients: Open WebUI's RAG (retrieval/
// utils.py generate_openai_batch_embeddings: {"input": texts, "model"},
// floats read as data[].embedding), the OpenAI Python SDK's default
// (resources/embeddings.py: encoding_format "base64" unless given, decoded
// as little-endian float32) with dimensions, as LlamaIndex's and
// LangChain's embeddings send it through that SDK, and LangChain Python's
// OpenAIEmbeddings default (embeddings/base.py _get_len_safe_embeddings:
// tiktoken token arrays as input). Users rely on each answer decoding to
// one vector per input; token arrays, which Gemini cannot embed, are a 400
// telling to send strings for a route of Gemini alone (docs/doors.md).
func TestReview40gEmbeddingsClients(t *testing.T) {
	openaiAnswer := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if strings.Contains(string(r.Body), `"base64"`) {
			return upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":"` + r40gVector(0.25, 0.5, 1) + `"}],"model":"text-embedding-3-small","usage":{"prompt_tokens":2,"total_tokens":2}}`}
		}
		return upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.25,0.5,1]},{"object":"embedding","index":1,"embedding":[0.5,0.25,1]}],"model":"text-embedding-3-small","usage":{"prompt_tokens":4,"total_tokens":4}}`}
	}
	geminiAnswer := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		n := strings.Count(string(r.Body), `"content"`)
		vals := make([]string, n)
		for i := range vals {
			vals[i] = `{"values":[0.25,0.5,1]}`
		}
		return upstreamtest.Step{Body: `{"embeddings":[` + strings.Join(vals, ",") + `]}`}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": openaiAnswer, "gemini": geminiAnswer})
	g := start(t, r40gEmbedCfg, fs)
	for _, route := range []string{"vec-gpt", "vec-gem"} {
		// Open WebUI: floats.
		r := g.raw(t, http.MethodPost, "/v1/embeddings", `{"input":["alpha","beta"],"model":"`+route+`"}`, "Authorization", "Bearer client-key")
		var floats struct {
			Data []struct {
				Embedding []float64 `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &floats); r.Status != 200 || err != nil || len(floats.Data) != 2 || len(floats.Data[0].Embedding) != 3 {
			t.Errorf("%s Open WebUI: %d %v %s", route, r.Status, err, r.Body)
		}
		// The Python SDK's default: base64 with dimensions.
		r = g.raw(t, http.MethodPost, "/v1/embeddings", `{"input":["alpha"],"model":"`+route+`","encoding_format":"base64","dimensions":3}`, "Authorization", "Bearer client-key")
		var b64 struct {
			Data []struct {
				Embedding string `json:"embedding"`
			} `json:"data"`
		}
		if err := json.Unmarshal(r.Body, &b64); r.Status != 200 || err != nil || len(b64.Data) != 1 {
			t.Fatalf("%s base64: %d %v %s", route, r.Status, err, r.Body)
		}
		if raw, err := base64.StdEncoding.DecodeString(b64.Data[0].Embedding); err != nil || len(raw) != 12 {
			t.Errorf("%s base64: %v, %d bytes, want 3 float32", route, err, len(raw))
		}
	}
	// LangChain Python: token arrays.
	r := g.raw(t, http.MethodPost, "/v1/embeddings", `{"input":[[9906,1917]],"model":"vec-gpt","encoding_format":"base64"}`, "Authorization", "Bearer client-key")
	if r.Status != 200 {
		t.Errorf("token arrays to OpenAI: %d %s", r.Status, r.Body)
	}
	r = g.raw(t, http.MethodPost, "/v1/embeddings", `{"input":[[9906,1917]],"model":"vec-gem","encoding_format":"base64"}`, "Authorization", "Bearer client-key")
	if r.Status != 400 || !strings.Contains(r.errMessage(t), "send strings") {
		t.Errorf("token arrays to Gemini: %d %s, want a 400 naming the input", r.Status, r.Body)
	}
}

// r40gVector is float32 values in OpenAI's base64 encoding.
func r40gVector(vs ...float32) string {
	b := make([]byte, 0, 4*len(vs))
	for _, v := range vs {
		u := math.Float32bits(v)
		b = append(b, byte(u), byte(u>>8), byte(u>>16), byte(u>>24))
	}
	return base64.StdEncoding.EncodeToString(b)
}

// r40gLlamaIndexCalls gathers the tool calls of a chat stream as
// llama-index-llms-openai does (llama_index/llms/openai/utils.py
// update_tool_calls, called by base.py _stream_chat for every chunk): it
// reads only the first entry of a chunk's delta.tool_calls ("openai
// provides chunks consisting of tool_call deltas one tool at a time"), a
// delta whose index differs from the last call's starts a new call, and
// any other delta is appended to the last call — id, name and arguments
// alike (t.id += tc_delta.id). A delta without function fails its assert.
func r40gLlamaIndexCalls(t *testing.T, chunks []r40gChunk) (calls [][3]string) {
	t.Helper()
	last := -1
	for _, ch := range chunks {
		if len(ch.Choices) == 0 || ch.Choices[0].Delta == nil || len(ch.Choices[0].Delta.ToolCalls) == 0 {
			continue
		}
		tc := ch.Choices[0].Delta.ToolCalls[0]
		if tc.Function == nil {
			t.Fatalf("LlamaIndex asserts tc_delta.function is not None: %v", ch.raw)
		}
		str := func(p *string) string {
			if p == nil {
				return ""
			}
			return *p
		}
		if tc.Index == nil || *tc.Index != last || len(calls) == 0 {
			calls = append(calls, [3]string{str(tc.ID), str(tc.Function.Name), str(tc.Function.Arguments)})
			if tc.Index != nil {
				last = *tc.Index
			}
			continue
		}
		c := &calls[len(calls)-1]
		c[0] += str(tc.ID)
		c[1] += str(tc.Function.Name)
		c[2] += str(tc.Function.Arguments)
	}
	return calls
}

// LlamaIndex users (OpenAILike with is_chat_model and
// is_function_calling_model, and the OpenAI class with an api_base) rely
// on an agent's parallel tool calls arriving whole through any vendor:
// each call in a chunk of its own, its id and name only in its first
// delta, so LlamaIndex's accumulator neither drops the second call nor
// doubles an id or name. Claude streams two tool_use blocks one after the
// other; Gemini sends both functionCall parts in one event.
func TestReview40gLlamaIndexParallelCalls(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Events: openAIToolStream("Let me check.")}),
		"anthropic": script(upstreamtest.Step{Events: anthropicTwoTools}),
		"gemini":    script(upstreamtest.Step{Events: []string{geminiTwoCalls}}),
	})
	g := start(t, clientsCfg, fs)
	// llama_index/llms/openai/base.py _get_model_kwargs: model,
	// temperature (0.1 by default), stream; tools from
	// _prepare_chat_with_tools with tool_choice "auto".
	const req = `{"messages":[{"role":"user","content":"Weather in Paris and Tokyo?"}],"model":%q,"temperature":0.1,"stream":true,
 "tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"properties":{"location":{"title":"Location","type":"string"}},"required":["location"],"type":"object"}}}],"tool_choice":"auto"}`
	for _, c := range r40gRoutes {
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", strings.Replace(req, "%q", `"`+c.route+`"`, 1), "Authorization", "Bearer client-key")
		if r.Status != 200 {
			t.Fatalf("%s: %d %s", c.route, r.Status, r.Body)
		}
		chunks, _ := r40gChunks(t, r.Body)
		calls := r40gLlamaIndexCalls(t, chunks)
		if len(calls) != 2 {
			t.Errorf("%s: LlamaIndex gathers %d calls %q, want 2: %s", c.route, len(calls), calls, r.Body)
			continue
		}
		want := map[string][2][2]string{
			"openai":    {{"call_DdmO9pD3xa9XTPNJ32zg2hcA", "get_weather"}, {"call_TokyoSecondCall0000000", "get_weather"}},
			"anthropic": {{"toolu_01TwoToolsParis000000001", "get_weather"}, {"toolu_01TwoToolsTokyo000000001", "get_weather"}},
			"gemini":    {{"call_", "fetchWeather"}, {"call_", "completelyDifferentFunction"}},
		}[c.upstream]
		for i, call := range calls {
			var args map[string]any
			id, name := call[0], call[1]
			if c.upstream == "gemini" && strings.HasPrefix(id, "call_") && strings.Count(id, "call_") == 1 {
				id = "call_" // Detour's generated id, once
			}
			if id != want[i][0] || name != want[i][1] || json.Unmarshal([]byte(call[2]), &args) != nil {
				t.Errorf("%s: LlamaIndex gathers call %q, want id %s and name %s: %s", c.route, call, want[i][0], want[i][1], r.Body)
			}
		}
	}
}
