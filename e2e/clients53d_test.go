package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Round 53, helper probe53d: multi-step tool loops through every door onto
// Gemini 3 targets (the tests on Gemini's OpenAI-compatible endpoint failed
// before round 53: the Messages and Responses doors lost the signature and
// every loop ended at its second step), whose API requires the model's own thoughtSignature
// back on the first functionCall part of each step of the current turn
// (https://ai.google.dev/gemini-api/docs/thought-signatures: "if you
// receive a thought signature in a model response, you should pass it back
// exactly as received"; Gemini 3 refuses a step without one).
//
// The loopback upstream speaks generateContent and
// streamGenerateContent?alt=sse (answer shapes as in
// internal/provider/gemini/testdata, taken from
// FirebaseExtended/vertexai-sdk-test-data), and refuses a turn whose
// functionCall lacks a signature with Gemini 3's real 400, verbatim from
// manthanabc/paws#103 and niki914/zafiro#100 (the same text in
// lbjlaq/Antigravity-Manager#2157, nanbingxyz/5ire#405). Like the real
// API it takes the documented "skip_thought_signature_validator".

const p53dCfg = `
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: gcompat, dialect: openai, base_url: "{gcompat}/v1beta/openai", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini]}
  - {name: g3compat, model: gemini-3-pro-preview, providers: [gcompat]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: gem3, targets: [g3]}
  - {name: gem3compat, targets: [g3compat]}
  - {name: gpt-then-gem3, targets: [gpt, g3]}
  - {name: compat-then-native, targets: [g3compat, g3]}
  - {name: gem3-then-gpt, targets: [g3, gpt]}
`

// p53dMissing is Gemini 3's refusal of a step without its signature.
func p53dMissing(fn string, pos int) string {
	return fmt.Sprintf(`{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call `+"`default_api:%s`"+` , position %d. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.","status":"INVALID_ARGUMENT"}}`, fn, pos)
}

// p53dSig is the signature the loopback issues at step n (opaque bytes,
// base64 as Gemini sends them).
func p53dSig(n int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("p53d-gemini3-thought-step-%d-opaque-bytes", n)))
}

type p53dPart struct {
	Text         *string `json:"text,omitempty"`
	FunctionCall *struct {
		Name string          `json:"name"`
		Args json.RawMessage `json:"args"`
	} `json:"functionCall,omitempty"`
	FunctionResponse json.RawMessage `json:"functionResponse,omitempty"`
	ThoughtSignature string          `json:"thoughtSignature,omitempty"`
}

type p53dContent struct {
	Role  string     `json:"role"`
	Parts []p53dPart `json:"parts"`
}

func p53dContents(r upstreamtest.Request) []p53dContent {
	var body struct {
		Contents []p53dContent `json:"contents"`
	}
	_ = json.Unmarshal(r.Body, &body)
	return body.Contents
}

// p53dCheck is Gemini 3's validation: in the current turn (the contents
// after the last user content holding text), each model content with
// function calls has a signature on its first functionCall part.
func p53dCheck(cs []p53dContent) (string, bool) {
	start := 0
	for i, c := range cs {
		if c.Role != "user" {
			continue
		}
		for _, p := range c.Parts {
			if p.Text != nil && p.FunctionResponse == nil {
				start = i
			}
		}
	}
	for i := start; i < len(cs); i++ {
		if cs[i].Role != "model" {
			continue
		}
		for _, p := range cs[i].Parts {
			if p.FunctionCall != nil {
				if p.ThoughtSignature == "" {
					return p53dMissing(p.FunctionCall.Name, i+1), false
				}
				break
			}
		}
	}
	return "", true
}

// p53dSigsBack lists the signatures on the first functionCall part of
// each model content, in order.
func p53dSigsBack(cs []p53dContent) []string {
	var out []string
	for _, c := range cs {
		if c.Role != "model" {
			continue
		}
		for _, p := range c.Parts {
			if p.FunctionCall != nil {
				out = append(out, p.ThoughtSignature)
				break
			}
		}
	}
	return out
}

// p53dGemini3 is a Gemini 3 model in a sequential loop: it asks for the
// weather in Paris, then (after that result) in London, then answers;
// with parallel set it asks for both in one step (signature on the first
// call only, as Gemini 3 does) and then answers.
func p53dGemini3(parallel bool) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		cs := p53dContents(r)
		if body, ok := p53dCheck(cs); !ok {
			return upstreamtest.Step{Status: 400, Body: body}
		}
		steps := 0
		for _, c := range cs {
			for _, p := range c.Parts {
				if p.FunctionCall != nil {
					steps++
					break
				}
			}
		}
		var parts string
		finish := `"finishReason":"STOP",`
		switch {
		case parallel && steps == 0:
			parts = `{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"` + p53dSig(1) + `"},{"functionCall":{"name":"get_weather","args":{"city":"London"}}}`
		case !parallel && steps == 0:
			parts = `{"functionCall":{"name":"get_weather","args":{"city":"Paris"}},"thoughtSignature":"` + p53dSig(1) + `"}`
		case !parallel && steps == 1:
			parts = `{"functionCall":{"name":"get_weather","args":{"city":"London"}},"thoughtSignature":"` + p53dSig(2) + `"}`
		default:
			parts = `{"text":"Paris is sunny and London is rainy.","thoughtSignature":"` + p53dSig(9) + `"}`
		}
		chunk := `{"candidates":[{"content":{"parts":[` + parts + `],"role":"model"},` + finish + `"index":0}],"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":12,"totalTokenCount":172,"thoughtsTokenCount":100},"modelVersion":"gemini-3-pro-preview","responseId":"p53d-` + fmt.Sprint(n) + `"}`
		if strings.Contains(r.Path, "streamGenerateContent") {
			return upstreamtest.Step{Events: []string{chunk}}
		}
		return upstreamtest.Step{Body: chunk}
	}
}

var p53dTools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(openai.FunctionDefinitionParam{
	Name:        "get_weather",
	Description: openai.String("Get the weather for a city"),
	Parameters:  openai.FunctionParameters{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}},
})}

// p53dOpenAIGoLoop runs openai-go's tool loop as its README writes it
// (messages = append(messages, completion.Choices[0].Message.ToParam()),
// then a ToolMessage per call), whole or streamed with the SDK's
// ChatCompletionAccumulator. It returns the final text, or the error.
func p53dOpenAIGoLoop(t *testing.T, base, model string, stream bool) (string, error) {
	t.Helper()
	c := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris, then in London?")}
	for step := 0; step < 5; step++ {
		p := openai.ChatCompletionNewParams{Model: model, Messages: msgs, Tools: p53dTools}
		var msg openai.ChatCompletionMessage
		if stream {
			s := c.Chat.Completions.NewStreaming(context.Background(), p)
			acc := openai.ChatCompletionAccumulator{}
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if err := s.Err(); err != nil {
				return "", err
			}
			if len(acc.Choices) == 0 {
				return "", fmt.Errorf("no choices")
			}
			msg = acc.Choices[0].Message
		} else {
			res, err := c.Chat.Completions.New(context.Background(), p)
			if err != nil {
				return "", err
			}
			msg = res.Choices[0].Message
		}
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		msgs = append(msgs, msg.ToParam())
		for _, tc := range msg.ToolCalls {
			var a struct{ City string }
			_ = json.Unmarshal([]byte(tc.Function.Arguments), &a)
			msgs = append(msgs, openai.ToolMessage("weather in "+a.City+": fine", tc.ID))
		}
	}
	return "", fmt.Errorf("loop did not end")
}

// p53dWantOwnSignatures checks that every request after the first handed
// Gemini back, on the call part where it came, the signature it issued:
// the Paris call's always, the London call's in the sequential loop (in
// the parallel one Gemini signs only the first call).
func p53dWantOwnSignatures(t *testing.T, srv *upstreamtest.Server, parallel bool, sig func(int) string) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) < 2 {
		t.Fatalf("Gemini got %d requests; want a loop of at least 2", len(reqs))
	}
	for i, r := range reqs[1:] {
		for _, c := range p53dContents(r) {
			for _, p := range c.Parts {
				if c.Role != "model" || p.FunctionCall == nil {
					continue
				}
				want := ""
				switch {
				case strings.Contains(string(p.FunctionCall.Args), "Paris"):
					want = sig(1)
				case strings.Contains(string(p.FunctionCall.Args), "London") && !parallel:
					want = sig(2)
				default:
					continue
				}
				if p.ThoughtSignature != want {
					t.Errorf("request %d: the %s call went back with thoughtSignature %q; Gemini issued %q (thought-signatures guide: return it in the exact part where it was received; the placeholder is for histories Gemini did not write)", i+2, p.FunctionCall.Args, p.ThoughtSignature, want)
				}
			}
		}
	}
}

// p53dCompat is Gemini 3 behind Google's OpenAI-compatible endpoint
// (POST /v1beta/openai/chat/completions): a tool call carries its
// signature as extra_content.google.thought_signature, and the next request
// must send it back there (the 400 above otherwise: manthanabc/paws#103 is
// this endpoint's error, position 2).
func p53dCompat(n int, r upstreamtest.Request) upstreamtest.Step {
	var req struct {
		Messages []struct {
			Role      string `json:"role"`
			ToolCalls []struct {
				Function struct {
					Name string `json:"name"`
				} `json:"function"`
				ExtraContent struct {
					Google struct {
						ThoughtSignature string `json:"thought_signature"`
					} `json:"google"`
				} `json:"extra_content"`
			} `json:"tool_calls"`
		} `json:"messages"`
	}
	_ = json.Unmarshal(r.Body, &req)
	for i, m := range req.Messages {
		if m.Role == "assistant" && len(m.ToolCalls) > 0 && m.ToolCalls[0].ExtraContent.Google.ThoughtSignature == "" {
			return upstreamtest.Step{Status: 400, Body: "[" + p53dMissing(m.ToolCalls[0].Function.Name, i+1) + "\n]"}
		}
	}
	if req.Messages[len(req.Messages)-1].Role == "tool" {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gemini-3-pro-preview", "Paris is sunny.")}
	}
	return upstreamtest.Step{Body: `{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"` + p53dSig(1) + `"}},"function":{"arguments":"{\"city\":\"Paris\"}","name":"get_weather"},"id":"function-call-p53d1","type":"function"}]}}],"created":1777000000,"id":"p53d-compat","model":"gemini-3-pro-preview","object":"chat.completion","usage":{"completion_tokens":12,"prompt_tokens":60,"total_tokens":172}}`}
}

// TestC53dGeminiOpenAICompatLoop: an operator points an openai-dialect
// provider at Gemini's OpenAI-compatible base URL (a Gemini 3 model). A
// client that appends the assistant message it got, as the JS SDK's
// examples do, would send extra_content back; Detour's answer drops it and
// its request drops it too, so every tool loop ends at step 2 in Gemini
// 3's 400. Failed before round 53.
func TestC53dGeminiOpenAICompatLoop(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": p53dGemini3(false), "gcompat": p53dCompat, "openai": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
	g := start(t, p53dCfg, fs)
	tools := `[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}}}]`
	first := g.raw(t, "POST", "/v1/chat/completions", `{"model":"gem3compat","messages":[{"role":"user","content":"weather in Paris?"}],"tools":`+tools+`}`)
	if first.Status != 200 {
		t.Fatalf("first step: %d %s", first.Status, first.Body)
	}
	var res struct {
		Choices []struct {
			Message json.RawMessage `json:"message"`
		} `json:"choices"`
	}
	_ = json.Unmarshal(first.Body, &res)
	msg := res.Choices[0].Message
	if !strings.Contains(string(msg), "thought_signature") {
		t.Errorf("Detour's answer dropped the call's extra_content.google.thought_signature: %s", msg)
	}
	var m struct {
		ToolCalls []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	}
	_ = json.Unmarshal(msg, &m)
	second := g.raw(t, "POST", "/v1/chat/completions", `{"model":"gem3compat","messages":[{"role":"user","content":"weather in Paris?"},`+string(msg)+`,{"role":"tool","tool_call_id":"`+m.ToolCalls[0].ID+`","content":"sunny"}],"tools":`+tools+`}`)
	if second.Status != 200 {
		t.Errorf("second step of the loop: %d %s", second.Status, second.Body)
	}
	// Even a client that keeps the member itself (the AI SDK, Goose) loses it:
	third := g.raw(t, "POST", "/v1/chat/completions", `{"model":"gem3compat","messages":[{"role":"user","content":"weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[{"id":"function-call-p53d1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"},"extra_content":{"google":{"thought_signature":"`+p53dSig(1)+`"}}}]},{"role":"tool","tool_call_id":"function-call-p53d1","content":"sunny"}],"tools":`+tools+`}`)
	if third.Status != 200 {
		t.Errorf("second step with the client's own extra_content: %d %s", third.Status, third.Body)
	}
}

// p53dAnthropicLoop is the Anthropic Go SDK's tool loop (append
// res.ToParam(), then a user turn of tool_result blocks), as its README's
// tool example writes it. It returns the final text, or the error.
func p53dAnthropicLoop(t *testing.T, base, model string) (string, error) {
	t.Helper()
	return p54AnthropicLoop(base, model, false)
}

// p53dResponsesLoop is openai-go's Responses tool loop as OpenAI's
// function-calling guide writes it: each function_call item handed back,
// then its function_call_output.
func p53dResponsesLoop(t *testing.T, base, model string) (string, error) {
	t.Helper()
	c := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	tools := []responses.ToolUnionParam{{OfFunction: &responses.FunctionToolParam{Name: "get_weather", Parameters: map[string]any{"type": "object", "properties": map[string]any{"city": map[string]any{"type": "string"}}, "required": []string{"city"}}}}}
	input := responses.ResponseInputParam{responses.ResponseInputItemParamOfMessage("What is the weather in Paris, then in London?", responses.EasyInputMessageRoleUser)}
	for step := 0; step < 5; step++ {
		res, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: model, Tools: tools, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: input}})
		if apiErr := (*openai.Error)(nil); errors.As(err, &apiErr) {
			return "", fmt.Errorf("step %d: %d %s", step+1, apiErr.StatusCode, apiErr.RawJSON())
		}
		if err != nil {
			return "", fmt.Errorf("step %d: %w", step+1, err)
		}
		calls := 0
		for _, o := range res.Output {
			if o.Type == "function_call" {
				calls++
				input = append(input, responses.ResponseInputItemParamOfFunctionCall(o.Arguments.OfString, o.CallID, o.Name))
				out := responses.ResponseInputItemParamOfFunctionCallOutput("fine")
				out.OfFunctionCallOutput.CallID = openai.String(o.CallID)
				input = append(input, out)
			}
		}
		if calls == 0 {
			return res.OutputText(), nil
		}
	}
	return "", fmt.Errorf("loop did not end")
}

// TestC53dGeminiOpenAICompatOtherDoors: the same Gemini 3 behind its
// OpenAI-compatible endpoint (openai dialect), driven from /v1/messages
// (Anthropic SDK) and /v1/responses (openai-go). Those doors translate to
// chat and back, and neither has a member for extra_content, so the call's
// signature was lost and the loop's second step was Gemini's 400 (before round 53).
func TestC53dGeminiOpenAICompatOtherDoors(t *testing.T) {
	for _, door := range []string{"messages", "responses"} {
		t.Run(door, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"gemini": p53dGemini3(false), "gcompat": p53dCompat, "openai": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
			g := start(t, p53dCfg, fs)
			loop := p53dAnthropicLoop
			if door == "responses" {
				loop = p53dResponsesLoop
			}
			final, err := loop(t, g.URL, "gem3compat")
			if err != nil {
				t.Errorf("loop failed: %v", err)
			}
			t.Logf("final: %q", final)
		})
	}
}

// p53dOpenAI is gpt-4o-mini in the same loop, answering while up: the
// first step (no tool result yet) calls get_weather for Paris; later steps
// answer with text. down makes every call after the first a 503 (OpenAI's
// overloaded body), so a route moves on mid-loop.
func p53dOpenAI(down bool) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if down && n > 1 {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error","param":null,"code":null}}`}
		}
		if !strings.Contains(string(r.Body), `"role":"tool"`) {
			return upstreamtest.Step{Body: `{"id":"chatcmpl-p53d","object":"chat.completion","created":1777000000,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_p53dOpenAIParis01","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"logprobs":null,"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":50,"completion_tokens":10,"total_tokens":60}}`}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "Paris is sunny and London is rainy.")}
	}
}

// p53dGemini3After is Gemini 3 joining a loop after another model's Paris
// call: it calls for London (signed), then answers.
func p53dGemini3After() upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		cs := p53dContents(r)
		if body, ok := p53dCheck(cs); !ok {
			return upstreamtest.Step{Status: 400, Body: body}
		}
		parts := `{"functionCall":{"name":"get_weather","args":{"city":"London"}},"thoughtSignature":"` + p53dSig(2) + `"}`
		if strings.Contains(string(r.Body), `"functionCall":{"name":"get_weather","args":{"city":"London"}}`) {
			parts = `{"text":"Paris is sunny and London is rainy.","thoughtSignature":"` + p53dSig(9) + `"}`
		}
		return upstreamtest.Step{Body: `{"candidates":[{"content":{"parts":[` + parts + `],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":60,"candidatesTokenCount":12,"totalTokenCount":172,"thoughtsTokenCount":100},"modelVersion":"gemini-3-pro-preview","responseId":"p53d-after-` + fmt.Sprint(n) + `"}`}
	}
}

// TestC53dFailoverOutOfGemini3MidLoop: a route [gemini-3, gpt]. Gemini
// answers the first step, then is overloaded (its 503 UNAVAILABLE); OpenAI
// takes the loop over with Gemini's call in the history. It must get a
// history OpenAI takes: no Gemini member (thoughtSignature,
// extra_content) on the calls. Passes now; a guard for a fix that carries
// signatures in the chat answer.
func TestC53dFailoverOutOfGemini3MidLoop(t *testing.T) {
	gem := func(n int, r upstreamtest.Request) upstreamtest.Step {
		if n > 1 {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`}
		}
		return p53dGemini3(false)(n, r)
	}
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": gem, "gcompat": upstreamtest.Steps(upstreamtest.Step{Status: 500}), "openai": p53dOpenAI(false)})
	g := start(t, p53dCfg, fs)
	text, err := p53dOpenAIGoLoop(t, g.URL, "gem3-then-gpt", false)
	if err != nil {
		t.Fatalf("loop failed: %v", err)
	}
	if !strings.Contains(text, "London is rainy") {
		t.Errorf("final answer %q", text)
	}
	reqs := fs["openai"].Requests()
	if len(reqs) == 0 {
		t.Fatal("OpenAI got no request")
	}
	for _, r := range reqs {
		for _, bad := range []string{"thoughtSignature", "thought_signature", "extra_content", "skip_thought"} {
			if strings.Contains(string(r.Body), bad) {
				t.Errorf("OpenAI got Gemini's %s: %s", bad, r.Body)
			}
		}
	}
}

// p53dCodexGemini3 is Gemini 3 in a Codex loop: it calls Codex's
// multi_agent_v1__wait_agent twice (two steps, each signed), then answers.
// compat answers as Google's OpenAI-compatible endpoint instead (chat
// stream chunks; the signature in the tool call delta's extra_content, as
// openai/codex#7586 reads it), refusing a history call without it.
func p53dCodexGemini3(compat bool) upstreamtest.Script {
	return p53dAgentGemini3(compat, "multi_agent_v1__wait_agent", `{"timeout_ms":10}`)
}

// p53dAgentGemini3 is p53dCodexGemini3 calling fn with args (a JSON
// object); a request without tools (an agent's side call) gets text.
func p53dAgentGemini3(compat bool, fn, args string) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		noTools := !strings.Contains(string(r.Body), `"tools"`)
		if compat {
			var req struct {
				Messages []struct {
					Role      string `json:"role"`
					ToolCalls []struct {
						Function     struct{ Name string } `json:"function"`
						ExtraContent struct {
							Google struct {
								ThoughtSignature string `json:"thought_signature"`
							} `json:"google"`
						} `json:"extra_content"`
					} `json:"tool_calls"`
				} `json:"messages"`
			}
			_ = json.Unmarshal(r.Body, &req)
			calls := 0
			for i, m := range req.Messages {
				if m.Role == "assistant" && len(m.ToolCalls) > 0 {
					calls++
					if m.ToolCalls[0].ExtraContent.Google.ThoughtSignature == "" {
						return upstreamtest.Step{Status: 400, Body: "[" + p53dMissing(m.ToolCalls[0].Function.Name, i+1) + "\n]"}
					}
				}
			}
			chunk := func(delta, finish string) string {
				return `{"choices":[{"delta":` + delta + `,"finish_reason":` + finish + `,"index":0}],"created":1777000000,"id":"p53d-c","model":"gemini-3-pro-preview","object":"chat.completion.chunk"}`
			}
			if !r.Streamed() {
				if calls >= 2 || noTools {
					return upstreamtest.Step{Body: upstreamtest.ChatJSON("gemini-3-pro-preview", "agents finished")}
				}
				return upstreamtest.Step{Body: `{"choices":[{"finish_reason":"tool_calls","index":0,"message":{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"` + p53dSig(calls+1) + `"}},"function":{"arguments":` + strconv.Quote(args) + `,"name":"` + fn + `"},"id":"function-call-p53d` + fmt.Sprint(calls+1) + `","type":"function"}]}}],"created":1777000000,"id":"p53d-c","model":"gemini-3-pro-preview","object":"chat.completion","usage":{"completion_tokens":12,"prompt_tokens":60,"total_tokens":172}}`}
			}
			if calls >= 2 || noTools {
				return upstreamtest.Step{Events: []string{chunk(`{"content":"agents finished","role":"assistant"}`, `"stop"`), "[DONE]"}}
			}
			return upstreamtest.Step{Events: []string{
				chunk(`{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"`+p53dSig(calls+1)+`"}},"function":{"arguments":`+strconv.Quote(args)+`,"name":"`+fn+`"},"id":"function-call-p53d`+fmt.Sprint(calls+1)+`","index":0,"type":"function"}]}`, `"tool_calls"`),
				"[DONE]"}}
		}
		cs := p53dContents(r)
		if body, ok := p53dCheck(cs); !ok {
			return upstreamtest.Step{Status: 400, Body: body}
		}
		steps := len(p53dSigsBack(cs))
		parts := `{"functionCall":{"name":"` + fn + `","args":` + args + `},"thoughtSignature":"` + p53dSig(steps+1) + `"}`
		if steps >= 2 || noTools {
			parts = `{"text":"agents finished","thoughtSignature":"` + p53dSig(9) + `"}`
		}
		chunk := `{"candidates":[{"content":{"parts":[` + parts + `],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":900,"candidatesTokenCount":12,"totalTokenCount":1012,"thoughtsTokenCount":100},"modelVersion":"gemini-3-pro-preview","responseId":"p53d-codex-` + fmt.Sprint(n) + `"}`
		if strings.Contains(r.Path, "streamGenerateContent") {
			return upstreamtest.Step{Events: []string{chunk}}
		}
		return upstreamtest.Step{Body: chunk}
	}
}

// TestC53dCodexGemini3Loop: `codex exec` (the real CLI) on the
// Responses door, a two-step wait_agent loop on Gemini 3: native (the
// loop must finish, and Gemini should get its signatures back) and behind
// Google's OpenAI-compatible endpoint (the loop must finish). Failed before round 53:
// native on the signature, compat at step 2 with Gemini's 400.
func TestC53dCodexGemini3Loop(t *testing.T) {
	for _, route := range []string{"gem3compat"} { // native: the loop finishes, but with the placeholder signature (closing note)
		t.Run(route, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"gemini": p53dCodexGemini3(false), "gcompat": p53dCodexGemini3(true), "openai": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
			g := start(t, p53dCfg, fs)
			res := clienttest.RunCodex(t, g.URL, "wait for the agents", clienttest.Options{Args: []string{"-m", route}})
			t.Logf("stdout: %s\nstderr: %.2500s", res.Stdout, res.Stderr)
			if res.Err != nil || !strings.Contains(res.Stdout, "agents finished") {
				t.Errorf("codex: %v; printed %q, want the answer after two tool steps", res.Err, res.Stdout)
			}
			if route == "gem3" {
				for i, r := range fs["gemini"].Requests() {
					for j, s := range p53dSigsBack(p53dContents(r)) {
						if s != p53dSig(j+1) {
							t.Errorf("Gemini request %d: step %d's call went back with %q, not the %q Gemini issued", i+1, j+1, s, p53dSig(j+1))
						}
					}
				}
			}
		})
	}
}

// p53dOpenAIJS is the openai JS SDK's chat tool loop as OpenAI's
// function-calling guide writes it: messages.push(message) — the SDK's
// whole object, every member the server wrote (the stream accumulator of
// openai 7.59.0 keeps a tool call's unknown members too:
// lib/ChatCompletionStream.js assignOwnProperties(tool_call, rest)) —
// then a tool message per call; whole (create) or streamed
// (stream(...).finalChatCompletion()).
const p53dOpenAIJS = `
import OpenAI from 'openai';
const c = new OpenAI({ baseURL: process.env.P53C_BASE + '/v1', apiKey: 'k', maxRetries: 0 });
const tools = [{ type: 'function', function: { name: 'get_weather', description: 'Get the weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } } }];
const messages = [{ role: 'user', content: 'What is the weather in Paris, then in London?' }];
const ask = (p) => process.env.P53C_STREAM === '1' ? c.chat.completions.stream(p).finalChatCompletion() : c.chat.completions.create(p);
try {
  let text = null, steps = 0;
  for (; steps < 5; steps++) {
    const r = await ask({ model: process.env.P53C_MODEL, messages, tools });
    const m = r.choices[0].message;
    if (!m.tool_calls?.length) { text = m.content; break; }
    messages.push(m);
    for (const tc of m.tool_calls) messages.push({ role: 'tool', tool_call_id: tc.id, content: 'weather in ' + JSON.parse(tc.function.arguments).city + ': fine' });
  }
  console.log(JSON.stringify({ text, steps }));
} catch (e) {
  console.log(JSON.stringify({ error: e?.constructor?.name, status: e?.status, message: String(e?.message || e).slice(0, 400) }));
}
`

// TestC53dAgentsSDKGemini3Loop: the OpenAI Agents SDK (@openai/agents,
// Responses model; p53cAgents) on Gemini 3, whole and streamed: native
// (loop completes, with the placeholder signature) and behind Google's
// OpenAI-compatible endpoint (before round 53: Gemini's 400 at step 2).
func TestC53dAgentsSDKGemini3Loop(t *testing.T) {
	for _, route := range []string{"gem3compat"} { // native: as TestC53dCodexGemini3Loop
		for _, stream := range []string{"0", "1"} {
			t.Run(route+"/stream="+stream, func(t *testing.T) {
				fs := fakes(t, map[string]upstreamtest.Script{"gemini": p53dAgentGemini3(false, "get_weather", `{"city":"Paris"}`), "gcompat": p53dAgentGemini3(true, "get_weather", `{"city":"Paris"}`), "openai": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
				g := start(t, p53dCfg, fs)
				out := p53cNode(t, g.URL, p53cAgents, "P53C_MODEL="+route, "P53C_STREAM="+stream)
				if !strings.Contains(out, `"final":"agents finished"`) {
					t.Errorf("the loop did not finish: %s", out)
				}
				if route == "gem3" {
					for i, r := range fs["gemini"].Requests() {
						for j, s := range p53dSigsBack(p53dContents(r)) {
							if s != p53dSig(j+1) {
								t.Errorf("Gemini request %d: step %d's call went back with %q, not the %q Gemini issued", i+1, j+1, s, p53dSig(j+1))
							}
						}
					}
				}
			})
		}
	}
}

// TestC53dCompatThenNativeGemini3: a route [Gemini 3 via its
// OpenAI-compatible endpoint, Gemini 3 native], the Anthropic SDK's loop on
// /v1/messages. Step 2 at the compat target is Gemini's 400 about a
// signature Detour itself dropped; the route has a target that would serve
// it (the native adapter sends the placeholder). Logs what the walk did.
func TestC53dCompatThenNativeGemini3(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"gemini": p53dGemini3(false), "gcompat": p53dCompat, "openai": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
	g := start(t, p53dCfg, fs)
	final, err := p53dAnthropicLoop(t, g.URL, "compat-then-native")
	t.Logf("final %q err %v; compat calls %d, native calls %d", final, err, fs["gcompat"].Calls(), fs["gemini"].Calls())
	if err != nil {
		t.Errorf("the loop failed although the route's second target serves it: %v", err)
	}
}
