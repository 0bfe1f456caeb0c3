package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The official OpenAI Go SDK against native Anthropic and Gemini targets: an
// SDK user should not notice which vendor answered, except by the model and
// X-Detour-Provider. The fakes answer in each vendor's own wire format, with
// bodies from the adapters' testdata (themselves from the vendors' published
// examples) or built in the documented shape, cited where used; every request
// a fake receives is checked for its path, its key header and the system
// prompt in the vendor's own field.

const sdkDialectCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
routes:
  - {name: mixed, targets: [claude, gem]}
`

const sdkSystem = "You are a cat. Your name is Neko."

// ask is a chat request for model with a system prompt; stream requests
// ask for usage as an SDK user would.
func ask(model, user string, stream bool) openai.ChatCompletionNewParams {
	p := openai.ChatCompletionNewParams{Model: shared.ChatModel(model), Messages: []openai.ChatCompletionMessageParamUnion{
		openai.SystemMessage(sdkSystem), openai.UserMessage(user)}}
	if stream {
		p.StreamOptions = openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)}
	}
	return p
}

// weatherTool is the get_weather tool of Anthropic's tool-use overview.
func weatherTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "get_weather",
		Description: openai.String("Get the current weather in a given location"),
		Parameters: shared.FunctionParameters{"type": "object", "required": []string{"location"},
			"properties": map[string]any{"location": map[string]any{"type": "string"}, "unit": map[string]any{"type": "string", "enum": []string{"celsius", "fahrenheit"}}}},
	})
}

// temperatureTool is get_current_temperature of Gemini's function-calling
// guide (https://ai.google.dev/gemini-api/docs/function-calling).
func temperatureTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
		Name:        "get_current_temperature",
		Description: openai.String("Gets the current temperature for a given location."),
		Parameters: shared.FunctionParameters{"type": "object", "required": []string{"location"},
			"properties": map[string]any{"location": map[string]any{"type": "string", "description": "The city name, e.g. San Francisco"}}},
	})
}

// nowTool is the parameterless `now` of the Firebase SDK test data's
// function-call fixtures.
func nowTool() openai.ChatCompletionToolUnionParam {
	return openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "now", Description: openai.String("Current date and time")})
}

// geminiTemperatureCall is a generateContent answer calling
// get_current_temperature for London, built in the documented response shape
// (candidates[].content{role: model, parts[].functionCall{name, args}},
// finishReason, usageMetadata, modelVersion) of
// https://ai.google.dev/gemini-api/docs/function-calling ("What's the
// temperature in London?") and
// https://ai.google.dev/api/generate-content#generatecontentresponse.
const geminiTemperatureCall = `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":58,"candidatesTokenCount":8,"totalTokenCount":66},"modelVersion":"gemini-2.0-flash","responseId":"doc-weather-1"}`

// anthropicReq is the part of a Messages request the tests read.
type anthropicReq struct {
	Model    string          `json:"model"`
	System   json.RawMessage `json:"system"`
	Stream   bool            `json:"stream"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ID        string          `json:"id"`
			Name      string          `json:"name"`
			Input     json.RawMessage `json:"input"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		} `json:"content"`
	} `json:"messages"`
}

// geminiReq is the part of a generateContent request the tests read.
type geminiReq struct {
	SystemInstruction *struct {
		Parts []struct {
			Text string `json:"text"`
		} `json:"parts"`
	} `json:"systemInstruction"`
	Contents []struct {
		Role  string `json:"role"`
		Parts []struct {
			Text         string `json:"text"`
			FunctionCall *struct {
				Name string         `json:"name"`
				Args map[string]any `json:"args"`
			} `json:"functionCall"`
			FunctionResponse *struct {
				Name     string         `json:"name"`
				Response map[string]any `json:"response"`
			} `json:"functionResponse"`
		} `json:"parts"`
	} `json:"contents"`
}

// anthropicRequests checks every request the Anthropic fake got (path, key,
// version, stream flag, system prompt in `system` and no system turn) and
// returns them decoded.
func anthropicRequests(t *testing.T, fake *upstreamtest.Server, stream bool) []anthropicReq {
	t.Helper()
	var out []anthropicReq
	for _, req := range fake.Requests() {
		var b anthropicReq
		if err := json.Unmarshal(req.Body, &b); err != nil {
			t.Fatalf("anthropic got a body that is not JSON: %v: %s", err, req.Body)
		}
		var system string
		_ = json.Unmarshal(b.System, &system)
		if req.Method != http.MethodPost || req.Path != "/v1/messages" || req.Header.Get("x-api-key") != secret ||
			req.Header.Get("anthropic-version") == "" || req.Header.Get("Authorization") != "" || b.Stream != stream {
			t.Errorf("anthropic got %s %s stream=%v headers %v", req.Method, req.Path, b.Stream, req.Header)
		}
		if system != sdkSystem || b.Model != "claude-sonnet-4-5" {
			t.Errorf("anthropic got model %q, system %s", b.Model, b.System)
		}
		for _, m := range b.Messages {
			if m.Role != "user" && m.Role != "assistant" {
				t.Errorf("anthropic got a %q turn: %s", m.Role, req.Body)
			}
		}
		out = append(out, b)
	}
	return out
}

// geminiRequests checks every request the Gemini fake got (path, alt=sse
// when streaming, key header, system prompt in systemInstruction and no
// system turn) and returns them decoded.
func geminiRequests(t *testing.T, fake *upstreamtest.Server, stream bool) []geminiReq {
	t.Helper()
	var out []geminiReq
	path := "/v1beta/models/gemini-2.0-flash:generateContent"
	if stream {
		path = "/v1beta/models/gemini-2.0-flash:streamGenerateContent"
	}
	for _, req := range fake.Requests() {
		var b geminiReq
		if err := json.Unmarshal(req.Body, &b); err != nil {
			t.Fatalf("gemini got a body that is not JSON: %v: %s", err, req.Body)
		}
		if req.Method != http.MethodPost || req.Path != path || stream != strings.Contains(req.Query, "alt=sse") ||
			req.Header.Get("x-goog-api-key") != secret || req.Header.Get("Authorization") != "" || strings.Contains(req.Query, secret) {
			t.Errorf("gemini got %s %s?%s headers %v", req.Method, req.Path, req.Query, req.Header)
		}
		if b.SystemInstruction == nil || len(b.SystemInstruction.Parts) != 1 || b.SystemInstruction.Parts[0].Text != sdkSystem {
			t.Errorf("gemini got no systemInstruction %q: %s", sdkSystem, req.Body)
		}
		for _, c := range b.Contents {
			if c.Role != "user" && c.Role != "model" {
				t.Errorf("gemini got a %q turn: %s", c.Role, req.Body)
			}
		}
		out = append(out, b)
	}
	return out
}

// checkUpstream runs the dialect's request checks on the fake that answered.
func checkUpstream(t *testing.T, fs map[string]*upstreamtest.Server, dialect string, stream bool) {
	t.Helper()
	if dialect == "anthropic" {
		anthropicRequests(t, fs["anthropic"], stream)
	} else {
		geminiRequests(t, fs["gemini"], stream)
	}
}

// accumulate reads a whole SDK stream into an accumulator and returns the
// stream's error.
func accumulate(t *testing.T, s interface {
	Next() bool
	Current() openai.ChatCompletionChunk
	Err() error
}) (openai.ChatCompletionAccumulator, error) {
	t.Helper()
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		if !acc.AddChunk(s.Current()) {
			t.Errorf("the accumulator rejected a chunk: %s", s.Current().RawJSON())
		}
	}
	return acc, s.Err()
}

func TestSDKDialectsText(t *testing.T) {
	for _, tc := range []struct {
		name, target, dialect string
		answer                upstreamtest.Step
		content, model        string
		prompt, completion    int64
	}{
		// https://docs.anthropic.com/en/api/messages (200 response example)
		{"anthropic", "claude", "anthropic", upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")},
			"Hi! My name is Claude.", "claude-3-5-sonnet-20240620", 2095, 503},
		// Firebase vertexai-sdk-test-data unary-success-basic-reply-short.txt
		{"gemini", "gem", "gemini", upstreamtest.Step{Body: upstreamOf(t, "gemini", "response/basic.json")},
			"Google's headquarters, also known as the Googleplex, is located in **Mountain View, California**.\n", "gemini-2.0-flash", 7, 22},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(tc.answer), "gemini": script(tc.answer)})
			g := start(t, sdkDialectCfg, fs)
			var resp *http.Response
			c, err := sdk(g).Chat.Completions.New(context.Background(), ask(tc.target, "Hello there", false), option.WithResponseInto(&resp))
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Choices) != 1 {
				t.Fatalf("choices: %+v", c.Choices)
			}
			ch := c.Choices[0]
			if ch.Message.Content != tc.content || ch.FinishReason != "stop" || ch.Message.Role != "assistant" || len(ch.Message.ToolCalls) != 0 {
				t.Errorf("choice: %+v", ch)
			}
			if c.Model != tc.model || c.Object != "chat.completion" || c.ID == "" {
				t.Errorf("completion %q object %q model %q", c.ID, c.Object, c.Model)
			}
			if c.Usage.PromptTokens != tc.prompt || c.Usage.CompletionTokens != tc.completion || c.Usage.TotalTokens != tc.prompt+tc.completion {
				t.Errorf("usage %+v", c.Usage)
			}
			if p := resp.Header.Get("X-Detour-Provider"); p != tc.dialect {
				t.Errorf("X-Detour-Provider %q", p)
			}
			checkUpstream(t, fs, tc.dialect, false)
			wantSteps(t, g.recs.wait(t, 1), tc.target+"/"+tc.dialect+" ok done")
		})
	}
}

func TestSDKDialectsTextStream(t *testing.T) {
	for _, tc := range []struct {
		name, target, dialect string
		sse                   string
		content, model        string
		usage                 [3]int64
	}{
		// anthropic-sdk-python tests/lib/streaming/fixtures/basic_response.txt
		{"anthropic", "claude", "anthropic", "stream/basic.sse", "Hello there!", "claude-3-opus-latest", [3]int64{11, 6, 17}},
		// Firebase vertexai-sdk-test-data streaming-success-basic-reply-short.txt
		{"gemini", "gem", "gemini", "stream/basic.sse", "The capital of Wyoming is **Cheyenne**.\n", "gemini-3.1-flash-lite", [3]int64{7, 10, 17}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := upstreamtest.Step{Events: sseBlocks(string(testdata(t, tc.dialect, tc.sse)))}
			fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(answer), "gemini": script(answer)})
			g := start(t, sdkDialectCfg, fs)
			var resp *http.Response
			s := sdk(g).Chat.Completions.NewStreaming(context.Background(), ask(tc.target, "Hello there", true), option.WithResponseInto(&resp))
			acc, err := accumulate(t, s)
			if err != nil {
				t.Fatal(err)
			}
			if len(acc.Choices) != 1 {
				t.Fatalf("accumulated: %+v", acc.ChatCompletion)
			}
			ch := acc.Choices[0]
			if ch.Message.Content != tc.content || ch.FinishReason != "stop" || ch.Message.Role != "assistant" {
				t.Errorf("accumulated choice: %+v", ch)
			}
			if acc.Model != tc.model {
				t.Errorf("model %q", acc.Model)
			}
			if u := acc.Usage; u.PromptTokens != tc.usage[0] || u.CompletionTokens != tc.usage[1] || u.TotalTokens != tc.usage[2] {
				t.Errorf("usage %+v", u)
			}
			if p := resp.Header.Get("X-Detour-Provider"); p != tc.dialect {
				t.Errorf("X-Detour-Provider %q", p)
			}
			checkUpstream(t, fs, tc.dialect, true)
			wantSteps(t, g.recs.wait(t, 1), tc.target+"/"+tc.dialect+" ok done")
		})
	}
}

// A mixed route: Anthropic overloaded (529), Gemini answers. The SDK sees a
// normal answer and only X-Detour-Provider and the model tell it was Gemini.
func TestSDKDialectsFailover(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "plain"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			gem := upstreamtest.Step{Body: upstreamOf(t, "gemini", "response/basic.json")}
			if stream {
				gem = upstreamtest.Step{Events: sseBlocks(string(testdata(t, "gemini", "stream/basic.sse")))}
			}
			fs := fakes(t, map[string]upstreamtest.Script{
				"anthropic": script(corpus(t, "anthropic-overloaded-529")),
				"gemini":    script(gem),
			})
			g := start(t, sdkDialectCfg, fs)
			var resp *http.Response
			var content, model, finish string
			if stream {
				acc, err := accumulate(t, sdk(g).Chat.Completions.NewStreaming(context.Background(), ask("mixed", "hi", true), option.WithResponseInto(&resp)))
				if err != nil {
					t.Fatal(err)
				}
				if len(acc.Choices) != 1 {
					t.Fatalf("accumulated: %+v", acc.ChatCompletion)
				}
				content, model, finish = acc.Choices[0].Message.Content, acc.Model, acc.Choices[0].FinishReason
			} else {
				c, err := sdk(g).Chat.Completions.New(context.Background(), ask("mixed", "hi", false), option.WithResponseInto(&resp))
				if err != nil {
					t.Fatal(err)
				}
				content, model, finish = c.Choices[0].Message.Content, c.Model, c.Choices[0].FinishReason
			}
			want, wantModel := "Google's headquarters, also known as the Googleplex, is located in **Mountain View, California**.\n", "gemini-2.0-flash"
			if stream {
				want, wantModel = "The capital of Wyoming is **Cheyenne**.\n", "gemini-3.1-flash-lite"
			}
			if content != want || model != wantModel || finish != "stop" {
				t.Errorf("answer %q from %q, finish %q", content, model, finish)
			}
			if resp.StatusCode != 200 || resp.Header.Get("X-Detour-Provider") != "gemini" || resp.Header.Get("X-Detour-Target") != "gem" ||
				resp.Header.Get("X-Detour-Route") != "mixed" || resp.Header.Get("X-Detour-Attempts") != "3" {
				t.Errorf("status %d headers %v", resp.StatusCode, resp.Header)
			}
			anthropicRequests(t, fs["anthropic"], stream)
			geminiRequests(t, fs["gemini"], stream)
			wantSteps(t, g.recs.wait(t, 1), "claude/anthropic server_error retry", "claude/anthropic server_error next_target", "gem/gemini ok done")
		})
	}
}

// An Anthropic stream whose only answer is stop_reason "refusal", no text
// (anthropic-sdk-python tests/lib/streaming/fixtures/refusal_response.txt):
// the SDK must get a refusal, never an empty success, and refusal does not
// fail over by default.
func TestSDKDialectsAnthropicStreamRefusal(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/refusal.sse")))}),
		"gemini":    script(upstreamtest.Step{Events: sseBlocks(string(testdata(t, "gemini", "stream/basic.sse")))}),
	})
	g := start(t, sdkDialectCfg, fs)
	var resp *http.Response
	s := sdk(g).Chat.Completions.NewStreaming(context.Background(), ask("mixed", "hi", true), option.WithResponseInto(&resp))
	var chunks []string
	for s.Next() {
		chunks = append(chunks, s.Current().RawJSON())
	}
	err := s.Err()
	if err == nil {
		t.Fatalf("a refusal reached the SDK as a success: %q", chunks)
	}
	var apiErr *openai.Error
	switch {
	case errors.As(err, &apiErr) && apiErr.StatusCode == http.StatusBadRequest:
		// Refused before anything was sent: the real answer, as an HTTP error.
		// Azure's code, OpenAI's type for a 400, and OpenAI's own code in the
		// message (round 57: LiteLLM's ContentPolicyViolationError wants
		// invalid_request_error and content_policy_violation, Microsoft's
		// clients content_filter).
		if apiErr.Type != "invalid_request_error" || apiErr.Code != "content_filter" || !strings.HasPrefix(apiErr.Message, "content_policy_violation: ") {
			t.Errorf("error type %q code %q: %s", apiErr.Type, apiErr.Code, apiErr.RawJSON())
		}
		if h := apiErr.Response.Header; h.Get("X-Detour-Class") != "refusal" || h.Get("X-Detour-Provider") != "anthropic" {
			t.Errorf("error headers %v", h)
		}
	case strings.Contains(err.Error(), "refus") || strings.Contains(err.Error(), "content_policy"):
		// Only acceptable if content had been sent first; this stream has none.
		t.Errorf("refusal reported mid-stream although nothing was said before it (chunks %q): %v", chunks, err)
	default:
		t.Errorf("not a refusal: %v (chunks %q)", err, chunks)
	}
	for _, c := range chunks {
		var ch openai.ChatCompletionChunk
		if json.Unmarshal([]byte(c), &ch) == nil && len(ch.Choices) > 0 && ch.Choices[0].FinishReason != "" {
			t.Errorf("the SDK saw a finish reason: %s", c)
		}
	}
	if fs["gemini"].Calls() != 0 {
		t.Errorf("a refusal failed over to gemini")
	}
	anthropicRequests(t, fs["anthropic"], true)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic refusal stop")
	if d.Outcome != "error" || d.Class != "refusal" || d.Attempts[0].Counted {
		t.Errorf("record outcome %q class %q counted %v", d.Outcome, d.Class, d.Attempts[0].Counted)
	}
}

// sameID matches a tool call id; "call_*" stands for Gemini's generated
// ids, which are fresh per answer.
func sameID(got, want string) bool {
	if p, ok := strings.CutSuffix(want, "*"); ok {
		return strings.HasPrefix(got, p) && len(got) > len(p)
	}
	return got == want
}
