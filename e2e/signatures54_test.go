package e2e

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/clienttest"
	"github.com/detour-llm/detour/internal/provider/gemini"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Gemini thought signatures through the Chat Completions door (round 54,
// docs/doors.md "Gemini thought signatures"). Before, every history call
// went to a native Gemini target with Google's placeholder, which Google
// documents for histories Gemini did not write and says may degrade the
// model's function calling; Gemini's own OpenAI-compatible API hands the
// signature to the client as a tool call's extra_content, and clients
// written for it (openai-go's ToParam keeps the message's JSON) hand it
// back. A signature is bound to the account and model that wrote it: sent
// to another, Gemini refuses the turn with "Corrupted thought signature."
// (400 INVALID_ARGUMENT, verbatim in heyhuynhgiabuu/proxypal#119; bound to
// the account: Wei-Shaw/sub2api#393; to the model: decolua/9router#4136),
// so a failover must not carry it.

const p54Cfg = `
providers:
  - {name: gemini-a, dialect: gemini, base_url: "{a}", api_key: ` + secret + `}
  - {name: gemini-b, dialect: gemini, base_url: "{b}", api_key: ` + secret + `}
  - {name: gcompat, dialect: openai, base_url: "{compat}/v1beta/openai", api_key: ` + secret + `}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a, gemini-b]}
  - {name: g3compat, model: gemini-3-pro-preview, providers: [gcompat]}
routes:
  - {name: gem3, targets: [g3]}
  - {name: native-then-compat, targets: [g3, g3compat]}
`

// p54Sig is the signature account issues at step n.
func p54Sig(account string, n int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("%s-gemini3-thought-step-%d", account, n)))
}

// p54Corrupted is Gemini's refusal of a signature it did not write.
const p54Corrupted = `{"error":{"code":400,"message":"Corrupted thought signature.","status":"INVALID_ARGUMENT"}}`

// p54Gemini is p53dGemini3 at one account that also refuses a signature it
// did not write (its own and Google's placeholder pass); with down set it
// answers 503 overloaded from its second request on.
func p54Gemini(account string, parallel, down bool) upstreamtest.Script {
	return func(n int, r upstreamtest.Request) upstreamtest.Step {
		if down && n > 1 {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}`}
		}
		for _, c := range p53dContents(r) {
			for _, p := range c.Parts {
				if s := p.ThoughtSignature; s != "" && s != gemini.SkipSignature && s != p54Sig(account, 1) && s != p54Sig(account, 2) {
					return upstreamtest.Step{Status: 400, Body: p54Corrupted}
				}
			}
		}
		step := p53dGemini3(parallel)(n, r)
		for i := 1; i <= 2; i++ {
			step.Body = strings.ReplaceAll(step.Body, p53dSig(i), p54Sig(account, i))
			for j := range step.Events {
				step.Events[j] = strings.ReplaceAll(step.Events[j], p53dSig(i), p54Sig(account, i))
			}
		}
		return step
	}
}

// A client's tool loop on a native Gemini 3 target, whole (openai-go,
// each call's ToParam, which keeps the call's JSON) and streamed (the JS
// SDK's stream helper, whose final message keeps every member of a call),
// sequential and parallel: each step hands Gemini back the signature it
// wrote, on the call where it came.
func TestGeminiSignaturesGoBackToTheirEndpoint(t *testing.T) {
	for _, c := range []struct {
		name             string
		stream, parallel bool
	}{{"whole", false, false}, {"whole-parallel", false, true}, {"streamed", true, false}, {"streamed-parallel", true, true}} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"a": p54Gemini("a", c.parallel, false), "b": p54Gemini("b", c.parallel, false),
				"compat": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
			g := start(t, p54Cfg, fs)
			if c.stream {
				res := clienttest.RunNode(t, g.URL, "openai.mjs", "DETOUR_MODEL=gem3", "DETOUR_CASES=chat_stream_tool_loop")
				var out struct{ Text string }
				if res.Case(t, "chat_stream_tool_loop", &out) && !strings.Contains(out.Text, "London is rainy") {
					t.Errorf("final answer %q", out.Text)
				}
			} else {
				text, err := p54OpenAIGoLoop(g.URL, "gem3")
				if err != nil {
					t.Fatalf("loop failed: %v", err)
				}
				if !strings.Contains(text, "London is rainy") {
					t.Errorf("final answer %q", text)
				}
			}
			if n := len(fs["b"].Requests()); n != 0 {
				t.Fatalf("gemini-b got %d requests; the loop was to stay at gemini-a", n)
			}
			p53dWantOwnSignatures(t, fs["a"], c.parallel, func(n int) string { return p54Sig("a", n) })
		})
	}
}

// p54OpenAIGoLoop is p53dOpenAIGoLoop (whole) handing each assistant turn
// back as its calls' ToParam, which openai-go builds from the call's JSON
// as it came (ChatCompletionMessage.ToParam builds the calls from their
// fields alone, so extra_content is not kept there).
func p54OpenAIGoLoop(base, model string) (string, error) {
	c := openai.NewClient(option.WithBaseURL(base+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
	msgs := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("What is the weather in Paris, then in London?")}
	for range 5 {
		res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: model, Messages: msgs, Tools: p53dTools})
		if err != nil {
			return "", err
		}
		msg := res.Choices[0].Message
		if len(msg.ToolCalls) == 0 {
			return msg.Content, nil
		}
		turn := openai.ChatCompletionAssistantMessageParam{}
		for _, tc := range msg.ToolCalls {
			turn.ToolCalls = append(turn.ToolCalls, tc.ToParam())
		}
		msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &turn})
		for _, tc := range msg.ToolCalls {
			var a struct{ City string }
			_ = json.Unmarshal([]byte(tc.Function.Arguments), &a)
			msgs = append(msgs, openai.ToolMessage("weather in "+a.City+": fine", tc.ID))
		}
	}
	return "", fmt.Errorf("loop did not end")
}

// The client holds the tagged signature, not Gemini's own bytes.
func TestGeminiSignatureReachesTheClientTagged(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"a": p54Gemini("a", false, false), "b": p54Gemini("b", false, false),
		"compat": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
	g := start(t, p54Cfg, fs)
	r := g.raw(t, "POST", "/v1/chat/completions", `{"model":"gem3","messages":[{"role":"user","content":"weather in Paris?"}],"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object"}}}]}`)
	body := string(r.Body)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, body)
	}
	var out struct {
		Choices []struct {
			Message struct {
				ToolCalls []struct {
					ExtraContent struct {
						Google struct {
							ThoughtSignature string `json:"thought_signature"`
						} `json:"google"`
					} `json:"extra_content"`
				} `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(body), &out); err != nil || len(out.Choices) == 0 || len(out.Choices[0].Message.ToolCalls) == 0 {
		t.Fatalf("%v: %s", err, body)
	}
	s := out.Choices[0].Message.ToolCalls[0].ExtraContent.Google.ThoughtSignature
	if !strings.HasPrefix(s, "detour1.") || !strings.HasSuffix(s, "."+p54Sig("a", 1)) {
		t.Errorf("the call's extra_content.google.thought_signature is %q; want Gemini's, tagged detour1.<tag>.", s)
	}
	if strings.Contains(body, secret) {
		t.Error("the answer holds the provider's key")
	}
}

// A failover mid-loop from one Gemini account to another: the second is
// handed the placeholder, never the first account's signature, which it
// would refuse ("Corrupted thought signature.", a bad_request that ends
// the walk); and to Gemini's OpenAI-compatible endpoint, where a tagged
// signature is no signature Gemini wrote, the placeholder too.
func TestGeminiSignatureStaysWithItsAccountOnFailover(t *testing.T) {
	for _, c := range []struct {
		name, route, next string
	}{{"another account", "gem3", "b"}, {"the compatible endpoint", "native-then-compat", "compat"}} {
		t.Run(c.name, func(t *testing.T) {
			scripts := map[string]upstreamtest.Script{"a": p54Gemini("a", false, true), "b": p54Gemini("b", false, false),
				"compat": p53dAgentGemini3(true, "get_weather", `{"city":"London"}`)}
			if c.next == "compat" {
				scripts["b"] = p54Gemini("b", false, true) // both native accounts are down after the first step
			}
			fs := fakes(t, scripts)
			g := start(t, p54Cfg, fs)
			_, err := p54OpenAIGoLoop(g.URL, c.route)
			if err != nil && c.next == "b" {
				t.Fatalf("loop failed: %v", err)
			}
			reqs := fs[c.next].Requests()
			if len(reqs) == 0 {
				t.Fatalf("%s got no request", c.next)
			}
			for _, r := range reqs {
				if strings.Contains(string(r.Body), p54Sig("a", 1)) {
					t.Errorf("%s was handed gemini-a's signature: %s", c.next, r.Body)
				}
				if strings.Contains(string(r.Body), "detour1.") {
					t.Errorf("%s was handed a tagged signature: %s", c.next, r.Body)
				}
			}
			if c.next == "b" {
				if got := p53dSigsBack(p53dContents(reqs[0])); len(got) == 0 || got[0] != gemini.SkipSignature {
					t.Errorf("gemini-b's first request carried %q on gemini-a's call; want the placeholder", got)
				}
			} else if !strings.Contains(string(reqs[0].Body), gemini.SkipSignature) {
				t.Errorf("the compatible endpoint's request has no placeholder on gemini-a's call: %s", reqs[0].Body)
			}
		})
	}
}

// The Messages door carries the signature too, in a redacted_thinking block
// before the call (Anthropic's SDKs and Claude Code hand every block of an
// assistant turn back, opaque data included): anthropic-sdk-go's loop on a
// native Gemini 3 target, whole and streamed (Message.Accumulate), hands
// Gemini back its own signatures; and a Claude target the loop fails over
// to never sees such a block (Anthropic refuses data it did not write).
func TestGeminiSignaturesThroughTheMessagesDoor(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[stream], func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"a": p54Gemini("a", false, false), "b": p54Gemini("b", false, false),
				"compat": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
			g := start(t, p54Cfg, fs)
			text, err := p54AnthropicLoop(g.URL, "gem3", stream)
			if err != nil {
				t.Fatalf("loop failed: %v", err)
			}
			if !strings.Contains(text, "London is rainy") {
				t.Errorf("final answer %q", text)
			}
			p53dWantOwnSignatures(t, fs["a"], false, func(n int) string { return p54Sig("a", n) })
		})
	}
}

func TestGeminiSignatureNeverReachesClaude(t *testing.T) {
	claude := func(n int, r upstreamtest.Request) upstreamtest.Step {
		if strings.Contains(string(r.Body), "redacted_thinking") || strings.Contains(string(r.Body), "detour1.") {
			return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid redacted_thinking data"}}`}
		}
		return upstreamtest.Step{Body: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Paris is sunny and London is rainy."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":50,"output_tokens":10}}`}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"a": p54Gemini("a", false, true), "claude": claude})
	g := start(t, `
providers:
  - {name: gemini-a, dialect: gemini, base_url: "{a}", api_key: `+secret+`}
  - {name: anthropic, dialect: anthropic, base_url: "{claude}", api_key: `+secret+`}
targets:
  - {name: g3, model: gemini-3-pro-preview, providers: [gemini-a]}
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: gem3-then-claude, targets: [g3, sonnet]}
`, fs)
	text, err := p54AnthropicLoop(g.URL, "gem3-then-claude", false)
	if err != nil {
		t.Fatalf("loop failed: %v", err)
	}
	if !strings.Contains(text, "London is rainy") {
		t.Errorf("final answer %q", text)
	}
	reqs := fs["claude"].Requests()
	if len(reqs) == 0 {
		t.Fatal("Claude got no request")
	}
	for _, r := range reqs {
		if strings.Contains(string(r.Body), "detour1.") {
			t.Errorf("Claude was sent a carried signature: %s", r.Body)
		}
	}
}

// p54AnthropicLoop is p53dAnthropicLoop, whole or streamed (the SDK's
// Message.Accumulate), each answer handed back with ToParam.
func p54AnthropicLoop(base, model string, stream bool) (string, error) {
	c := anthropic.NewClient(aoption.WithBaseURL(base), aoption.WithAPIKey("k"), aoption.WithMaxRetries(0))
	tools := []anthropic.ToolUnionParam{{OfTool: &anthropic.ToolParam{Name: "get_weather", Description: anthropic.String("Get the weather for a city"), InputSchema: anthropic.ToolInputSchemaParam{Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}}}}}
	msgs := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock("What is the weather in Paris, then in London?"))}
	for step := range 5 {
		p := anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 1024, Messages: msgs, Tools: tools}
		var res anthropic.Message
		if stream {
			s := c.Messages.NewStreaming(context.Background(), p)
			for s.Next() {
				if err := res.Accumulate(s.Current()); err != nil {
					return "", err
				}
			}
			if err := s.Err(); err != nil {
				return "", fmt.Errorf("step %d: %w", step+1, err)
			}
		} else {
			r, err := c.Messages.New(context.Background(), p)
			if err != nil {
				return "", fmt.Errorf("step %d: %w", step+1, err)
			}
			res = *r
		}
		msgs = append(msgs, res.ToParam())
		var results []anthropic.ContentBlockParamUnion
		final := ""
		for _, b := range res.Content {
			if b.Type == "tool_use" {
				results = append(results, anthropic.NewToolResultBlock(b.ID, "fine", false))
			}
			if b.Type == "text" {
				final += b.Text
			}
		}
		if len(results) == 0 {
			return final, nil
		}
		msgs = append(msgs, anthropic.NewUserMessage(results...))
	}
	return "", fmt.Errorf("loop did not end")
}

// The Responses door carries the signature in a reasoning item before the
// call, as its encrypted_content (Codex and the Agents SDK hand every
// output item back, store false): a loop that hands back each answer's
// output items, as Codex does, whole and streamed (the items of
// response.completed), hands Gemini back its own signatures.
func TestGeminiSignaturesThroughTheResponsesDoor(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "streamed"}[stream], func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"a": p54Gemini("a", false, false), "b": p54Gemini("b", false, false),
				"compat": upstreamtest.Steps(upstreamtest.Step{Status: 500})})
			g := start(t, p54Cfg, fs)
			input := []json.RawMessage{json.RawMessage(`{"role":"user","content":"What is the weather in Paris, then in London?"}`)}
			final := ""
			for step := 0; step < 5 && final == ""; step++ {
				in, _ := json.Marshal(input)
				body := `{"model":"gem3","store":false,"include":["reasoning.encrypted_content"],"stream":` + strconv.FormatBool(stream) +
					`,"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],"input":` + string(in) + `}`
				r := g.raw(t, "POST", "/v1/responses", body)
				if r.Status != 200 {
					t.Fatalf("step %d: %d %s", step+1, r.Status, r.Body)
				}
				var res struct {
					Output []json.RawMessage `json:"output"`
				}
				raw := r.Body
				if stream {
					raw = nil
					for _, line := range strings.Split(string(r.Body), "\n") {
						if d, ok := strings.CutPrefix(line, "data: "); ok && strings.Contains(d, `"type":"response.completed"`) {
							var ev struct {
								Response json.RawMessage `json:"response"`
							}
							_ = json.Unmarshal([]byte(d), &ev)
							raw = ev.Response
						}
					}
				}
				if err := json.Unmarshal(raw, &res); err != nil {
					t.Fatalf("step %d: %v: %s", step+1, err, r.Body)
				}
				calls := 0
				for _, o := range res.Output {
					var head struct {
						Type   string `json:"type"`
						CallID string `json:"call_id"`
					}
					_ = json.Unmarshal(o, &head)
					input = append(input, o) // every item back, as Codex does with store false
					switch head.Type {
					case "function_call":
						calls++
						input = append(input, json.RawMessage(`{"type":"function_call_output","call_id":"`+head.CallID+`","output":"fine"}`))
					case "message":
						final = string(o)
					}
				}
				if calls > 0 {
					final = ""
				}
			}
			if !strings.Contains(final, "London is rainy") {
				t.Errorf("final answer %q", final)
			}
			p53dWantOwnSignatures(t, fs["a"], false, func(n int) string { return p54Sig("a", n) })
		})
	}
}

// p54Tools is the tool the hand-back tests offer.
const p54Tools = `"tools":[{"type":"function","function":{"name":"get_weather","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}}]`

// p54FirstCall asks route model for the weather in Paris and returns the
// answer's first tool call as the client holds it, and the call's id.
func p54FirstCall(t *testing.T, g *gateway, model string) (json.RawMessage, string) {
	t.Helper()
	r := g.raw(t, "POST", "/v1/chat/completions", `{"model":"`+model+`","messages":[{"role":"user","content":"weather in Paris?"}],`+p54Tools+`}`)
	var out struct {
		Choices []struct {
			Message struct {
				ToolCalls []json.RawMessage `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal(r.Body, &out); err != nil || r.Status != 200 || len(out.Choices) == 0 || len(out.Choices[0].Message.ToolCalls) == 0 {
		t.Fatalf("step 1: %d %v %s", r.Status, err, r.Body)
	}
	tc := out.Choices[0].Message.ToolCalls[0]
	var id struct{ ID string }
	_ = json.Unmarshal(tc, &id)
	return tc, id.ID
}

// p54HandBack is the second step's body: the call handed back as it came
// (the JS SDK's messages.push(message)), then its result.
func p54HandBack(model string, stream bool, tc json.RawMessage, id string) string {
	return `{"model":"` + model + `","stream":` + strconv.FormatBool(stream) + `,"messages":[{"role":"user","content":"weather in Paris?"},{"role":"assistant","content":null,"tool_calls":[` + string(tc) + `]},{"role":"tool","tool_call_id":"` + id + `","content":"fine"}],` + p54Tools + `}`
}
