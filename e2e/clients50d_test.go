package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 50 (probe c50d): the Chat Completions door as open-source chat UIs
// and workflow tools send it (SillyTavern, Dify, Open WebUI), to Claude
// and Gemini targets. Every request names its source.

// c50dSillyTavern is SillyTavern's chat completion request with source
// "custom" (SillyTavern/SillyTavern public/scripts/openai.js
// createGenerationParameters: temperature, frequency_penalty,
// presence_penalty, top_p, max_tokens, stream, logit_bias — `{}` with no
// bias preset —, stop from getCustomStoppingStrings(openai_max_stop_strings
// = 4), seed when >= 0; src/endpoints/backends/chat-completions.js adds
// top_k and n to the body it forwards). The prompt is what its prompt
// manager builds with no post-processing: the main prompt, example
// dialogue as system messages named example_user / example_assistant,
// "[Start a new Chat]", the character's greeting as the first assistant
// turn, the chat, a post-history (jailbreak) system message after the last
// user turn, and "Continue" with its continue_postfix " ": the message
// being continued as a final assistant turn ending in a space.
const c50dSillyTavern = `{"messages":[
  {"role":"system","content":"Write Seraphina's next reply in a fictional chat between Seraphina and User."},
  {"role":"system","content":"[Example Chat]"},
  {"role":"system","name":"example_user","content":"Who are you?"},
  {"role":"system","name":"example_assistant","content":"*She smiles.* I am Seraphina, guardian of this forest."},
  {"role":"system","content":"[Start a new Chat]"},
  {"role":"assistant","content":"*You wake in a glade. A woman with pink hair kneels beside you.* You're awake. You were hurt."},
  {"role":"user","content":"Where am I?"},
  {"role":"system","content":"[System note: stay in character; write one paragraph.]"},
  {"role":"assistant","content":"*Seraphina brushes a strand of hair from her face.* "}
 ],
 "model":%q,"temperature":1,"frequency_penalty":0,"presence_penalty":0,"top_p":1,"top_k":40,
 "max_tokens":300,"stream":%v,"logit_bias":{},"stop":["\nUser:","</s>"],"seed":7}`

// SillyTavern users rely on a roleplay turn being taken by every vendor:
// greeting first, named example messages, a system note after the last
// user turn and a continued (prefilled) reply ending in a space.
func TestC50dSillyTavernCustom(t *testing.T) {
	for _, c := range r40gRoutes {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/stream=%v", c.route, stream), func(t *testing.T) {
				fs := r40gTextFakes(t)
				g := start(t, clientsCfg, fs)
				r := g.raw(t, http.MethodPost, "/v1/chat/completions", fmt.Sprintf(c50dSillyTavern, c.route, stream))
				if r.Status != 200 {
					t.Fatalf("status %d: %s", r.Status, r.Body)
				}
				if stream {
					if chunks, done := r40gChunks(t, r.Body); !done || len(chunks) == 0 {
						t.Fatalf("stream without [DONE]: %s", r.Body)
					}
				}
				sent := string(lastRaw(t, fs[c.upstream]))
				switch c.upstream {
				case "anthropic":
					var req struct {
						Messages []struct {
							Role string `json:"role"`
						} `json:"messages"`
						TopK *int `json:"top_k"`
					}
					_ = json.Unmarshal([]byte(sent), &req)
					if n := len(req.Messages); n == 0 || req.Messages[n-1].Role != "assistant" {
						t.Errorf("the continued reply is not Claude's prefill: %s", sent)
					}
					if !strings.Contains(sent, "stay in character") {
						t.Errorf("the post-history note is lost: %s", sent)
					}
					if req.TopK == nil {
						t.Logf("minor: top_k 40 not sent to Claude, which takes top_k")
					}
				case "gemini":
					if !strings.Contains(sent, "topK") {
						t.Logf("minor: top_k 40 not sent to Gemini as topK, which it takes")
					}
				}
			})
		}
	}
}

// c50dGeminiStopLimit is a Gemini fake that refuses more than five stop
// sequences, as Gemini documents (generationConfig.stopSequences: "The set
// of character sequences (up to 5) that will stop output generation",
// https://ai.google.dev/api/generate-content#generationconfig, quoted in
// simonw/llm-gemini#45) and answers: generativelanguage.googleapis.com
// "the number of stop_sequences must not exceed 5" (continuedev/continue#2702),
// Vertex "Unable to submit request because it has a stopSequences value of
// 10 but the supported range is from 1 (inclusive) to 6 (exclusive)"
// (continuedev/continue#7849).
func c50dGeminiStopLimit(answer string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			GenerationConfig struct {
				StopSequences []string `json:"stopSequences"`
			} `json:"generationConfig"`
		}
		_ = json.Unmarshal(r.Body, &req)
		if len(req.GenerationConfig.StopSequences) > 5 {
			b, _ := json.Marshal(map[string]any{"error": map[string]any{"code": 400, "message": "the number of stop_sequences must not exceed 5", "status": "INVALID_ARGUMENT"}})
			return upstreamtest.Step{Status: 400, Body: string(b)}
		}
		if r.Streamed() || strings.Contains(r.Path, "stream") {
			return r40gStrict("gemini", upstreamtest.Step{Events: []string{answer}})(0, r)
		}
		return strictGemini(answer)(0, r)
	}
}

// A chat client's stop list longer than five: Open WebUI sends the model's
// "Stop Sequence" advanced parameter as the list the user typed
// (backend/open_webui/utils/payload.py apply_model_params_to_body_openai),
// and Continue sent ten through an OpenAI-format gateway to Gemini
// (continuedev/continue#7849). OpenAI's own cap is 4, Gemini's 5, Claude
// names none. Every request of such a chat on a Gemini route is a 400,
// where the Claude adapter already leaves out stop strings Anthropic
// refuses (docs/doors.md: whitespace stop strings "not sent").
func TestC50dGeminiMoreThanFiveStops(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(fmt.Sprintf("stream=%v", stream), func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"gemini": c50dGeminiStopLimit(geminiText("hello there")),
				"openai": strictOpenAI(upstreamtest.ChatJSON("gpt-4o-mini", "hello there")), "anthropic": strictAnthropic(anthropicMessage("claude-sonnet-4-5", "hello there"))})
			g := start(t, clientsCfg, fs)
			body := fmt.Sprintf(`{"stream":%v,"model":"via-gem","messages":[{"role":"user","content":"Write a haiku."}],
 "stop":["<|im_end|>","<|endoftext|>","</s>","\nUser:","\n\n\n","###"]}`, stream)
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
			if r.Status != 200 {
				t.Fatalf("status %d (Gemini takes at most 5 stop sequences; Detour sent %s): %s", r.Status, lastRaw(t, fs["gemini"]), r.Body)
			}
		})
	}
}

// Dify's credential check (llm.py _request_credentials_validation and
// _validate_credentials_response): {"model","max_tokens":5,"messages":
// [{"role":"user","content":"ping"}]} must answer 200 with object
// "chat.completion"; with stream_mode_auth "use", max_tokens 10 and
// stream true must answer 200. Its stream reader then indexes
// chunk["choices"] on every data line that is not [DONE].
func TestC50dDifyValidateAndStream(t *testing.T) {
	for _, c := range r40gRoutes {
		t.Run(c.route, func(t *testing.T) {
			fs := r40gTextFakes(t)
			g := start(t, clientsCfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", fmt.Sprintf(`{"model":%q,"max_tokens":5,"messages":[{"role":"user","content":"ping"}]}`, c.route))
			if r.Status != 200 || r.json(t)["object"] != "chat.completion" {
				t.Fatalf("validation answer %d: %s", r.Status, r.Body)
			}
			r = g.raw(t, http.MethodPost, "/v1/chat/completions", fmt.Sprintf(`{"model":%q,"stream":true,"stream_options":{"include_usage":true},"max_tokens":10,"messages":[{"role":"user","content":"ping"}],"user":"3f2c8d4e-5b6a-4c7d-8e9f-0a1b2c3d4e5f"}`, c.route))
			if r.Status != 200 {
				t.Fatalf("stream validation %d: %s", r.Status, r.Body)
			}
			// Dify splits the body on "\n\n" (stream_mode_delimiter), skips a
			// block starting ":" and strips a leading "data:"; a block that is
			// then not JSON ends its read ("Non-JSON encountered.").
			for _, block := range strings.Split(string(r.Body), "\n\n") {
				b := strings.TrimSpace(block)
				if b == "" || strings.HasPrefix(b, ":") {
					continue
				}
				d := strings.TrimSpace(strings.TrimPrefix(b, "data:"))
				if d != "[DONE]" && !json.Valid([]byte(d)) {
					t.Errorf("a stream block Dify cannot read: %q", block)
				}
			}
			chunks, done := r40gChunks(t, r.Body)
			if !done {
				t.Fatalf("no [DONE]: %s", r.Body)
			}
			for _, ch := range chunks {
				if _, ok := ch.raw["choices"]; !ok {
					t.Errorf("a chunk without choices (Dify: KeyError): %v", ch.raw)
				}
			}
		})
	}
}

// c50dOpenWebUITools is Open WebUI's chat with a tool in "native" function
// calling mode (backend/open_webui/utils/middleware.py: the form data with
// the tools' specs as `tools`, streamed).
const c50dOpenWebUITools = `{"stream":true,"model":%q,"messages":[{"role":"system","content":"You are a helpful assistant."},{"role":"user","content":"What is the weather in Paris?"}%s],
 "tools":[{"type":"function","function":{"name":"get_weather","description":"Get the weather for a city","parameters":{"type":"object","properties":{"location":{"type":"string","description":"The city"}},"required":["location"]}}},
          {"type":"function","function":{"name":"get_current_temperature","description":"Get the current temperature","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}}]}`

// c50dOpenWebUIAccumulate merges streamed tool-call deltas as Open WebUI's
// accumulate_tool_call_deltas does (middleware.py): a delta without
// `index` is ignored; an unseen index starts a call (the delta itself,
// `index` included); a known index appends the delta's function name and
// arguments to the call's own.
func c50dOpenWebUIAccumulate(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var calls []map[string]any
	chunks, _ := r40gChunks(t, body)
	for _, c := range chunks {
		chs, _ := c.raw["choices"].([]any)
		if len(chs) == 0 {
			continue
		}
		delta, _ := chs[0].(map[string]any)["delta"].(map[string]any)
		tcs, _ := delta["tool_calls"].([]any)
		for _, x := range tcs {
			d := x.(map[string]any)
			idx, ok := d["index"]
			if !ok || idx == nil {
				t.Errorf("tool call delta without index (Open WebUI ignores it): %v", d)
				continue
			}
			var cur map[string]any
			for _, have := range calls {
				if have["index"] == idx {
					cur = have
				}
			}
			fn, _ := d["function"].(map[string]any)
			if cur == nil {
				if fn == nil {
					fn = map[string]any{}
					d["function"] = fn
				}
				if _, ok := fn["name"]; !ok {
					fn["name"] = ""
				}
				if _, ok := fn["arguments"]; !ok {
					fn["arguments"] = ""
				}
				calls = append(calls, d)
				continue
			}
			cf := cur["function"].(map[string]any)
			if n, _ := fn["name"].(string); n != "" {
				cf["name"] = cf["name"].(string) + n
			}
			if a, _ := fn["arguments"].(string); a != "" {
				cf["arguments"] = cf["arguments"].(string) + a
			}
		}
	}
	return calls
}

// Open WebUI users with native function calling rely on a streamed call
// it can run (its accumulator: index on every delta, the name once) and on
// the follow-up it sends after running it being taken: the accumulated
// calls sent back as they were kept (each with its `index`), beside
// content "" (convert_content_blocks_to_messages: no text before the
// call), and the tool's result, "" when the tool returned nothing
// (`result.get("content", "") or ""`).
func TestC50dOpenWebUINativeTools(t *testing.T) {
	for _, c := range r40gRoutes {
		t.Run(c.route, func(t *testing.T) {
			fs := r40gToolFakes(t)
			g := start(t, clientsCfg, fs)
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", fmt.Sprintf(c50dOpenWebUITools, c.route, ""))
			if r.Status != 200 {
				t.Fatalf("status %d: %s", r.Status, r.Body)
			}
			calls := c50dOpenWebUIAccumulate(t, r.Body)
			if len(calls) == 0 {
				t.Fatalf("no tool call: %s", r.Body)
			}
			for _, call := range calls {
				fn := call["function"].(map[string]any)
				if n := fn["name"].(string); n != "get_weather" && n != "get_current_temperature" {
					t.Errorf("Open WebUI reads the name %q: %s", n, r.Body)
				}
				var args map[string]any
				if err := json.Unmarshal([]byte(fn["arguments"].(string)), &args); err != nil {
					t.Errorf("arguments %q do not parse: %v", fn["arguments"], err)
				}
			}
			kept, _ := json.Marshal(calls)
			var follow strings.Builder
			fmt.Fprintf(&follow, `,{"role":"assistant","content":"","tool_calls":%s}`, kept)
			for i, call := range calls {
				result := ""
				if i > 0 {
					result = `{"temperature": 18}`
				}
				rb, _ := json.Marshal(result)
				fmt.Fprintf(&follow, `,{"role":"tool","tool_call_id":%q,"content":%s}`, call["id"], rb)
			}
			r = g.raw(t, http.MethodPost, "/v1/chat/completions", fmt.Sprintf(c50dOpenWebUITools, c.route, follow.String()))
			if r.Status != 200 {
				t.Fatalf("follow-up status %d: %s\nsent: %s", r.Status, r.Body, lastRaw(t, fs[c.upstream]))
			}
		})
	}
}

// c50dGeminiTwoStream is Gemini's stream for candidateCount 2: each event
// a GenerateContentResponse of the shape of the whole answer of two
// candidates (c50aGeminiTwo: googleapis/nodejs-vertexai test data, the
// first candidate's index 0 omitted by proto3 JSON), the text in two
// pieces and the finish in the last event.
var c50dGeminiTwoStream = []string{
	`{"candidates":[{"content":{"role":"model","parts":[{"text":"one "}]}},{"content":{"role":"model","parts":[{"text":"two "}]},"index":1}],"modelVersion":"gemini-2.5-flash"}`,
	`{"candidates":[{"content":{"role":"model","parts":[{"text":"more"}]},"finishReason":"STOP"},{"content":{"role":"model","parts":[{"text":"more"}]},"finishReason":"STOP","index":1}],"usageMetadata":{"promptTokenCount":5,"candidatesTokenCount":4,"totalTokenCount":9},"modelVersion":"gemini-2.5-flash"}`,
}

// SillyTavern's multi-swipe (oai_settings.n > 1 with source "custom",
// canMultiSwipe in public/scripts/openai.js) streams n choices and builds
// one swipe per choice index from delta.content. On a Gemini route each
// swipe must get its own candidate's text, and each its finish.
func TestC50dSillyTavernMultiSwipeGemini(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"gemini":    r40gStrict("gemini", upstreamtest.Step{Events: c50dGeminiTwoStream}),
		"openai":    strictOpenAI(upstreamtest.ChatJSON("gpt-4o-mini", "x")),
		"anthropic": strictAnthropic(anthropicMessage("claude-sonnet-4-5", "x")),
	})
	g := start(t, clientsCfg, fs)
	body := strings.Replace(fmt.Sprintf(c50dSillyTavern, "via-gem", true), `"seed":7}`, `"seed":7,"n":2}`, 1)
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", body)
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	if !strings.Contains(string(lastRaw(t, fs["gemini"])), `"candidateCount":2`) {
		t.Errorf("candidateCount not sent: %s", lastRaw(t, fs["gemini"]))
	}
	chunks, done := r40gChunks(t, r.Body)
	if !done {
		t.Fatalf("no [DONE]: %s", r.Body)
	}
	swipes := map[int]string{}
	finished := map[int]string{}
	for _, c := range chunks {
		for _, ch := range c.Choices {
			if ch.Index == nil {
				t.Errorf("a choice without index: %v", c.raw)
				continue
			}
			if ch.Delta != nil && ch.Delta.Content != nil {
				swipes[*ch.Index] += *ch.Delta.Content
			}
			if ch.FinishReason != nil {
				finished[*ch.Index] = *ch.FinishReason
			}
		}
	}
	if swipes[0] != "one more" || swipes[1] != "two more" || finished[0] != "stop" || finished[1] != "stop" {
		t.Errorf("swipes %v, finishes %v: %s", swipes, finished, r.Body)
	}
}

// The model lists chat UIs read from GET /v1/models: LobeChat, Jan,
// Chatbox, Open WebUI and n8n's OpenAI chat model node (with a custom base
// URL it lists every id) read `data[].id`; the openai SDKs' Model type has
// `id`, `object: "model"`, `created` (an integer) and `owned_by`.
func TestC50dModelsListShape(t *testing.T) {
	g := start(t, clientsCfg, r40gTextFakes(t))
	r := g.raw(t, http.MethodGet, "/v1/models", "")
	if r.Status != 200 {
		t.Fatalf("status %d: %s", r.Status, r.Body)
	}
	var list struct {
		Object string           `json:"object"`
		Data   []map[string]any `json:"data"`
	}
	if err := json.Unmarshal(r.Body, &list); err != nil || list.Object != "list" || len(list.Data) == 0 {
		t.Fatalf("not a model list: %v %s", err, r.Body)
	}
	ids := map[string]bool{}
	for _, m := range list.Data {
		id, _ := m["id"].(string)
		ids[id] = true
		if _, ok := m["created"].(float64); !ok || m["object"] != "model" {
			t.Errorf("model %v lacks an integer created or object model", m)
		}
		if _, ok := m["owned_by"].(string); !ok {
			t.Errorf("model %v lacks owned_by", m)
		}
	}
	for _, c := range r40gRoutes {
		if !ids[c.route] {
			t.Errorf("route %s not listed: %s", c.route, r.Body)
		}
	}
}
