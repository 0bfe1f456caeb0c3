package e2e

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Requests OpenAI takes that Claude and Gemini targets must get in a form
// their vendor takes (docs/doors.md, "Chat Completions to Claude and Gemini
// targets"), through the official OpenAI Go SDK, against fakes that refuse
// what each vendor refuses (vendor_rules_test.go).

const edgesCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: judge, targets: [claude, gpt]}
`

// geminiText is a generateContent answer saying text.
func geminiText(text string) string {
	b, _ := json.Marshal(map[string]any{"candidates": []any{map[string]any{"index": 0, "finishReason": "STOP",
		"content": map[string]any{"role": "model", "parts": []any{map[string]any{"text": text}}}}},
		"usageMetadata": map[string]any{"promptTokenCount": 5, "candidatesTokenCount": 2, "totalTokenCount": 7}, "modelVersion": "gemini-2.5-flash"})
	return string(b)
}

// strictFakes are the three vendors, each answering text when it takes the
// request.
func strictFakes(t *testing.T, text string) map[string]*upstreamtest.Server {
	return fakes(t, map[string]upstreamtest.Script{
		"anthropic": strictAnthropic(anthropicMessage("claude-sonnet-4-5", text)),
		"gemini":    strictGemini(geminiText(text)),
		"openai":    strictOpenAI(upstreamtest.ChatJSON("gpt-4o-mini", text)),
	})
}

func openaiSDK(g *gateway) openai.Client {
	return openai.NewClient(option.WithBaseURL(g.URL+"/v1"), option.WithAPIKey("k"), option.WithMaxRetries(0))
}

// lastBody is the last request body fake got, decoded.
func lastBody(t *testing.T, fake *upstreamtest.Server) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(lastRaw(t, fake), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

// lastRaw is the last request body fake got, as sent.
func lastRaw(t *testing.T, fake *upstreamtest.Server) []byte {
	t.Helper()
	rs := fake.Requests()
	if len(rs) == 0 {
		t.Fatal("the upstream got no request")
	}
	return rs[len(rs)-1].Body
}

// stop: ["\n"] (a one-line answer) is taken by OpenAI and refused by
// Anthropic ("each stop sequence must contain non-whitespace"): a Claude
// target gets the other stop strings only.
func TestChatWhitespaceStopToClaude(t *testing.T) {
	fs := strictFakes(t, "one line")
	g := start(t, edgesCfg, fs)
	c := openaiSDK(g)
	res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "claude",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("one line please")},
		Stop:     openai.ChatCompletionNewParamsStopUnion{OfStringArray: []string{"\n", "END", " "}}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Choices[0].Message.Content != "one line" {
		t.Errorf("answer %q", res.Choices[0].Message.Content)
	}
	var stop []string
	for _, s := range lastBody(t, fs["anthropic"])["stop_sequences"].([]any) {
		stop = append(stop, s.(string))
	}
	if !slices.Equal(stop, []string{"END"}) {
		t.Errorf("stop_sequences %q, want [END]", stop)
	}
}

// A conversation of one system message (an LLM-as-judge or one-shot
// prompt), or a system message and an empty user text, is valid at OpenAI;
// Claude and Gemini targets get the instructions as their one user turn.
// Before, they got "messages": null / "contents": null, which both refuse.
func TestChatSystemOnlyToClaudeAndGemini(t *testing.T) {
	fs := strictFakes(t, "Waves fold on the shore")
	g := start(t, edgesCfg, fs)
	c := openaiSDK(g)
	for _, target := range []string{"claude", "gem"} {
		for name, msgs := range map[string][]openai.ChatCompletionMessageParamUnion{
			"system alone":        {openai.SystemMessage("Write a haiku about the sea.")},
			"developer alone":     {openai.DeveloperMessage("Write a haiku about the sea.")},
			"and empty user text": {openai.SystemMessage("Write a haiku about the sea."), openai.UserMessage("")},
		} {
			res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: target, Messages: msgs})
			if err != nil {
				t.Errorf("%s, %s: %v", target, name, err)
				continue
			}
			if res.Choices[0].Message.Content != "Waves fold on the shore" {
				t.Errorf("%s, %s: answer %q", target, name, res.Choices[0].Message.Content)
			}
		}
	}
	sent := lastBody(t, fs["anthropic"])
	if _, ok := sent["system"]; ok || js(sent["messages"]) != `[{"content":[{"text":"Write a haiku about the sea.","type":"text"}],"role":"user"}]` {
		t.Errorf("claude got %s", js(sent))
	}
	sent = lastBody(t, fs["gemini"])
	if _, ok := sent["systemInstruction"]; ok || js(sent["contents"]) != `[{"parts":[{"text":"Write a haiku about the sea."}],"role":"user"}]` {
		t.Errorf("gemini got %s", js(sent))
	}

	// The same through the Responses door: a developer item alone.
	for _, target := range []string{"claude", "gem"} {
		r := g.raw(t, "POST", "/v1/responses", `{"model":"`+target+`","input":[{"role":"developer","content":"Write a haiku about the sea."}]}`)
		if r.Status != 200 {
			t.Errorf("responses, %s: %d %s", target, r.Status, r.Body)
		}
	}
}

// A conversation with no text at all (one empty user message, valid at
// OpenAI) is nothing Claude takes: its attempt fails as unknown with
// evidence translate, nothing is sent, and the route moves on to a target
// that takes it.
func TestChatEmptyUserTextMovesOn(t *testing.T) {
	fs := strictFakes(t, "Hello")
	g := start(t, edgesCfg, fs)
	c := openaiSDK(g)
	res, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: "judge",
		Messages: []openai.ChatCompletionMessageParamUnion{openai.UserMessage("")}})
	if err != nil {
		t.Fatal(err)
	}
	if res.Choices[0].Message.Content != "Hello" {
		t.Errorf("answer %q", res.Choices[0].Message.Content)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic unknown next_target", "gpt/openai ok done")
	if d.Attempts[0].Evidence != "translate" || fs["anthropic"].Calls() != 0 {
		t.Errorf("claude attempt %+v, %d calls", d.Attempts[0], fs["anthropic"].Calls())
	}
}

func js(v any) string { b, _ := json.Marshal(v); return string(b) }

// The Responses API takes tool_choice and parallel_tool_calls with no tool
// to call (the Agents SDK sends tools: []; Codex's web_search is dropped
// for translated targets); Chat Completions refuses both without tools,
// and Gemini a function calling config without declarations. Every
// translated target gets neither; the response still echoes them.
func TestResponsesToolChoiceWithoutTools(t *testing.T) {
	fs := strictFakes(t, "hi there")
	g := start(t, edgesCfg, fs)
	c := openaiSDK(g)
	for _, target := range []string{"gpt", "claude", "gem"} {
		for name, opt := range map[string]option.RequestOption{
			"tools []":         option.WithJSONSet("tools", []any{}),
			"web_search alone": option.WithJSONSet("tools", []any{map[string]any{"type": "web_search"}}),
		} {
			r, err := c.Responses.New(context.Background(), responses.ResponseNewParams{Model: target,
				Input:             responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
				ToolChoice:        responses.ResponseNewParamsToolChoiceUnion{OfToolChoiceMode: openai.Opt(responses.ToolChoiceOptionsAuto)},
				ParallelToolCalls: openai.Bool(false)}, opt)
			if err != nil {
				t.Errorf("%s, %s: %v", target, name, err)
				continue
			}
			if r.OutputText() != "hi there" || r.ToolChoice.OfToolChoiceMode != "auto" || r.ParallelToolCalls {
				t.Errorf("%s, %s: %s", target, name, r.RawJSON())
			}
		}
	}
	// The chat door's own Claude and Gemini targets likewise.
	for _, target := range []string{"claude", "gem"} {
		_, err := c.Chat.Completions.New(context.Background(), openai.ChatCompletionNewParams{Model: target,
			Messages:   []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")},
			ToolChoice: openai.ChatCompletionToolChoiceOptionUnionParam{OfAuto: openai.String("required")}})
		if err != nil {
			t.Errorf("chat, %s: %v", target, err)
		}
	}
}
