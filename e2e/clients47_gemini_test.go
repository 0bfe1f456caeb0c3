package e2e

import (
	"context"
	"encoding/json"
	"math"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 47: client review 46's findings at the Gemini
// adapter, through the gateway as the clients meet them.

// Open WebUI's chat with a model's advanced parameters (r40gOpenWebUI:
// frequency_penalty 0.1, from open-webui's apply_model_params_to_body_openai)
// to a route of gemini-2.5-flash is answered: Gemini 2.5 answers a request
// carrying a penalty with 400 INVALID_ARGUMENT "Penalty is not enabled for
// models/gemini-2.5-flash" (vercel/ai#8943, BerriAI/litellm#32273), so the
// penalty is not sent to it; the chat's other settings are.
func TestClients47bPenaltiesNotSentToGemini25(t *testing.T) {
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", strings.Replace(r40gOpenWebUI, "%q", `"via-gem"`, 1), "Authorization", "Bearer k")
	if r.Status != http.StatusOK {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	reqs := fs["gemini"].Requests()
	if len(reqs) != 1 {
		t.Fatalf("gemini got %d requests", len(reqs))
	}
	var body struct {
		GenerationConfig map[string]any `json:"generationConfig"`
	}
	if err := json.Unmarshal(reqs[0].Body, &body); err != nil {
		t.Fatal(err)
	}
	gc := body.GenerationConfig
	if _, ok := gc["frequencyPenalty"]; ok || gc["temperature"] != 0.8 || gc["seed"] != 42.0 || gc["maxOutputTokens"] != 1024.0 {
		t.Errorf("generationConfig %v: want temperature, seed and maxOutputTokens without frequencyPenalty", gc)
	}
}

const c47bEmbedCfg = `
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: gem, model: gemini-embedding-001, providers: [gemini]}
routes:
  - {name: e-gem, targets: [gem]}
`

// Embeddings from Gemini at fewer than 3072 dimensions reach an OpenAI
// client at unit length, as OpenAI's do ("normalized to length 1", OpenAI's
// embeddings FAQ, https://help.openai.com/en/articles/6824809-embeddings-faq),
// whether it reads floats or base64 (openai-go decodes base64): Gemini's
// guide (https://ai.google.dev/gemini-api/docs/embeddings, "Ensuring quality
// for smaller dimensions") leaves normalizing them to the caller, which
// behind the OpenAI door is Detour.
func TestClients47bGeminiEmbeddingsUnitLength(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"gemini": script(upstreamtest.Step{Body: `{"embeddings":[{"values":[0.3,0.4]},{"values":[-0.05,0.12]}]}`},
			upstreamtest.Step{Body: `{"embeddings":[{"values":[0.3,0.4]},{"values":[-0.05,0.12]}]}`}),
	})
	g := start(t, c47bEmbedCfg, fs)
	for _, format := range []openai.EmbeddingNewParamsEncodingFormat{openai.EmbeddingNewParamsEncodingFormatFloat, openai.EmbeddingNewParamsEncodingFormatBase64} {
		e, err := sdk(g).Embeddings.New(context.Background(), openai.EmbeddingNewParams{Model: "e-gem", Dimensions: openai.Int(2), EncodingFormat: format,
			Input: openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: []string{"The food was delicious", "The waiter was rude"}}})
		if err != nil {
			t.Fatal(err)
		}
		if len(e.Data) != 2 {
			t.Fatalf("%s: %d vectors", format, len(e.Data))
		}
		for i, d := range e.Data {
			v := d.Embedding
			if n := v[0]*v[0] + v[1]*v[1]; math.Abs(n-1) > 1e-6 {
				t.Errorf("%s: vector %d %v has squared length %v, want 1", format, i, v, n)
			}
		}
		if v := e.Data[0].Embedding; math.Abs(v[0]-0.6) > 1e-6 || math.Abs(v[1]-0.8) > 1e-6 {
			t.Errorf("%s: %v, want [0.6 0.8]: the direction Gemini gave", format, v)
		}
	}
}

// A GIF (OpenAI and Anthropic take it) on a route whose first target is
// Gemini: Gemini takes inline images of type image/png, image/jpeg,
// image/webp, image/heic and image/heif only and answers another with 400
// INVALID_ARGUMENT "MIME type must be image/png, image/jpeg, image/webp,
// image/heic, or image/heif." (EvanZhouDev/gemini-ai#3), a bad_request that
// ended the walk. Now the gemini attempt is unknown with evidence translate,
// nothing is sent to Gemini, and GPT answers (docs/behaviour.md: "A request
// a dialect cannot express … is an unknown attempt with evidence translate:
// nothing is sent, nothing cools, the request moves on"), through the chat
// door and the Messages door alike.
func TestClients47bGIFOnGeminiMovesOn(t *testing.T) {
	const cfg = clientsCfg + `  - {name: gem-then-gpt, targets: [gem, gpt]}
`
	fs := r40gTextFakes(t)
	g := start(t, cfg, fs)
	const gif = "R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7"
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"gem-then-gpt","messages":[{"role":"user","content":[{"type":"text","text":"What is in this image?"},{"type":"image_url","image_url":{"url":"data:image/gif;base64,`+gif+`"}}]}]}`, "Authorization", "Bearer k")
	if r.Status != http.StatusOK {
		t.Fatalf("chat: %d %s", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gem/gemini unknown next_target", "gpt/openai ok done")
	if d.Attempts[0].Evidence != "translate" {
		t.Errorf("gemini attempt %+v", d.Attempts[0])
	}
	r = g.raw(t, http.MethodPost, "/v1/messages", `{"model":"gem-then-gpt","max_tokens":256,"messages":[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/gif","data":"`+gif+`"}},{"type":"text","text":"What is in this image?"}]}]}`, "x-api-key", "k", "anthropic-version", "2023-06-01")
	if r.Status != http.StatusOK {
		t.Fatalf("messages: %d %s", r.Status, r.Body)
	}
	if n := fs["gemini"].Calls(); n != 0 {
		t.Errorf("gemini got %d calls, want none", n)
	}
}

// A conversation in which the model refused once, carried on as openai-go
// (ChatCompletionMessage.ToParam: the refusal member, no content) and the
// reference's content parts ("one or more of type text, or exactly one of
// type refusal", https://platform.openai.com/docs/api-reference/chat/create)
// write it, reaches Gemini with the refusal as the model's turn between the
// two user turns, and is answered.
func TestClients47bAssistantRefusalToGemini(t *testing.T) {
	fs := r40gTextFakes(t)
	g := start(t, clientsCfg, fs)
	for name, assistant := range map[string]string{
		"member": `{"role":"assistant","content":null,"refusal":"I'm sorry, I can't help with that."}`,
		"part":   `{"role":"assistant","content":[{"type":"refusal","refusal":"I'm sorry, I can't help with that."}]}`,
	} {
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"via-gem","messages":[{"role":"user","content":"How do I pick a lock?"},`+assistant+`,{"role":"user","content":"OK. Then how do locks work?"}]}`, "Authorization", "Bearer k")
		if r.Status != http.StatusOK {
			t.Errorf("%s: %d %s", name, r.Status, r.Body)
			continue
		}
		reqs := fs["gemini"].Requests()
		var body struct {
			Contents []struct {
				Role  string `json:"role"`
				Parts []struct {
					Text string `json:"text"`
				} `json:"parts"`
			} `json:"contents"`
		}
		if err := json.Unmarshal(reqs[len(reqs)-1].Body, &body); err != nil {
			t.Fatal(err)
		}
		c := body.Contents
		if len(c) != 3 || c[1].Role != "model" || len(c[1].Parts) != 1 || c[1].Parts[0].Text != "I'm sorry, I can't help with that." {
			t.Errorf("%s: gemini got %s, want the refusal as the model's turn", name, reqs[len(reqs)-1].Body)
		}
	}
}

// Function tools beside structured output, as the OpenAI Agents SDK sends
// every turn of an agent with tools and an output_type (chat: tools and
// response_format json_schema; Responses: tools and text.format; the
// Messages door: output_config.format beside a custom tool). Gemini before
// Gemini 3 refuses functionDeclarations with responseMimeType
// application/json: 400 "Function calling with a response mime type:
// 'application/json' is unsupported" (google-gemini/deprecated-generative-
// ai-swift#195, openai/openai-agents-python#656), which the fake enforces.
// Through every door the client gets the answer the reserved function
// carried as its content, finished with stop.
func TestClients47GeminiToolsBesideStructuredOutput(t *testing.T) {
	const answer = `{"city":"London","celsius":14}`
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(), "anthropic": script(),
		"gemini": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			var req struct {
				Tools []struct {
					FunctionDeclarations []struct{ Name string } `json:"functionDeclarations"`
				}
				GenerationConfig struct {
					ResponseMimeType string `json:"responseMimeType"`
				}
			}
			_ = json.Unmarshal(r.Body, &req)
			var names []string
			for _, tl := range req.Tools {
				for _, d := range tl.FunctionDeclarations {
					names = append(names, d.Name)
				}
			}
			if len(names) > 0 && req.GenerationConfig.ResponseMimeType == "application/json" {
				return upstreamtest.Step{Status: 400, Body: `{"error":{"code":400,"message":"Function calling with a response mime type: 'application/json' is unsupported","status":"INVALID_ARGUMENT"}}`}
			}
			if !strings.Contains(strings.Join(names, ","), "detour_json_answer") {
				return upstreamtest.Step{Status: 500, Body: `{"error":{"code":500,"message":"the fake wanted the answer function beside ` + strings.Join(names, ",") + `","status":"INTERNAL"}}`}
			}
			return upstreamtest.Step{Body: `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"detour_json_answer","args":` + answer + `}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":58,"candidatesTokenCount":8,"totalTokenCount":66},"modelVersion":"gemini-2.5-flash"}`}
		}})
	g := start(t, clientsCfg, fs)
	schema := `{"type":"object","properties":{"city":{"type":"string"},"celsius":{"type":"number"}},"required":["city","celsius"],"additionalProperties":false}`
	fn := `"name":"get_current_temperature","description":"Get the temperature","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}`

	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"via-gem","messages":[{"role":"user","content":"How warm is London?"}],
	 "tools":[{"type":"function","function":{`+fn+`}}],"response_format":{"type":"json_schema","json_schema":{"name":"final_output","strict":true,"schema":`+schema+`}}}`,
		"Authorization", "Bearer client-key")
	var chat struct {
		Choices []struct {
			Message struct {
				Content   string
				ToolCalls []any `json:"tool_calls"`
			}
			FinishReason string `json:"finish_reason"`
		}
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &chat) != nil || len(chat.Choices) != 1 ||
		chat.Choices[0].Message.Content != answer || len(chat.Choices[0].Message.ToolCalls) != 0 || chat.Choices[0].FinishReason != "stop" {
		t.Errorf("chat: %d %s", r.Status, r.Body)
	}

	r = g.raw(t, http.MethodPost, "/v1/responses", `{"model":"via-gem","input":"How warm is London?",
	 "tools":[{"type":"function",`+fn+`}],"text":{"format":{"type":"json_schema","name":"final_output","strict":true,"schema":`+schema+`}}}`,
		"Authorization", "Bearer client-key")
	if r.Status != http.StatusOK || !strings.Contains(string(r.Body), `"output_text"`) || !strings.Contains(string(r.Body), `London`) {
		t.Errorf("responses: %d %s", r.Status, r.Body)
	}

	r = g.raw(t, http.MethodPost, "/v1/messages", `{"model":"via-gem","max_tokens":1024,"messages":[{"role":"user","content":"How warm is London?"}],
	 "tools":[{"name":"get_current_temperature","description":"Get the temperature","input_schema":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]}}],
	 "output_config":{"format":{"type":"json_schema","schema":`+schema+`}}}`, "x-api-key", "client-key", "anthropic-version", "2023-06-01")
	var msg struct {
		Content    []struct{ Type, Text string }
		StopReason string `json:"stop_reason"`
	}
	if r.Status != http.StatusOK || json.Unmarshal(r.Body, &msg) != nil || len(msg.Content) != 1 || msg.Content[0].Text != answer || msg.StopReason != "end_turn" {
		t.Errorf("messages: %d %s", r.Status, r.Body)
	}
}
