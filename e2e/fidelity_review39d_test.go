package e2e

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// fidelityCfg has a route beginning with each translated vendor, then
// OpenAI, and a route of Claude and Gemini alone.
const fidelityCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gem, model: gemini-2.5-flash, providers: [gemini]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: claude-first, targets: [claude, gpt]}
  - {name: gem-first, targets: [gem, gpt]}
  - {name: no-openai, targets: [claude, gem]}
`

// A chat client that declares a custom tool (GPT-5's free-form tools),
// the deprecated functions, audio output or web search relies on getting
// a call of that tool, an audio answer, a searched answer — never a prose
// answer from a model that was not told. Claude and Gemini targets cannot
// give any of them: their attempt fails as unknown, evidence translate,
// nothing is sent, and the route moves on to OpenAI; a route of Claude and
// Gemini alone answers a 400 naming the member. Before, the member was
// dropped and Claude or Gemini answered text with a 200.
func TestChatMembersOnlyOpenAIAnswersMoveOn(t *testing.T) {
	user := []openai.ChatCompletionMessageParamUnion{openai.UserMessage("hi")}
	cases := map[string]struct {
		p      openai.ChatCompletionNewParams
		member string
	}{
		"custom tool": {openai.ChatCompletionNewParams{Messages: user, Tools: []openai.ChatCompletionToolUnionParam{
			openai.ChatCompletionCustomTool(openai.ChatCompletionCustomToolCustomParam{Name: "exec", Description: openai.String("Run a shell command")})}}, "custom"},
		"functions": {openai.ChatCompletionNewParams{Messages: user,
			Functions: []openai.ChatCompletionNewParamsFunction{{Name: "get_weather",
				Parameters: shared.FunctionParameters{"type": "object", "properties": map[string]any{}}}},
			FunctionCall: openai.ChatCompletionNewParamsFunctionCallUnion{OfFunctionCallOption: &openai.ChatCompletionFunctionCallOptionParam{Name: "get_weather"}}},
			"functions"},
		"audio": {openai.ChatCompletionNewParams{Messages: user, Modalities: []string{"text", "audio"},
			Audio: openai.ChatCompletionAudioParam{Voice: openai.ChatCompletionAudioParamVoiceUnion{OfString: openai.String("alloy")}, Format: openai.ChatCompletionAudioParamFormatWAV}},
			"modalities"},
		"web search": {openai.ChatCompletionNewParams{Messages: user,
			WebSearchOptions: openai.ChatCompletionNewParamsWebSearchOptions{SearchContextSize: "low"}}, "web_search_options"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			fs := strictFakes(t, "Hello")
			g := start(t, fidelityCfg, fs)
			cl := openaiSDK(g)
			for i, first := range []string{"claude-first", "gem-first"} {
				p := c.p
				p.Model = first
				res, err := cl.Chat.Completions.New(context.Background(), p)
				if err != nil {
					t.Fatalf("%s: %v", first, err)
				}
				if res.Choices[0].Message.Content != "Hello" {
					t.Errorf("%s: answer %q", first, res.Choices[0].Message.Content)
				}
				d := g.recs.wait(t, i+1)
				up := map[string]string{"claude-first": "claude/anthropic", "gem-first": "gem/gemini"}[first]
				wantSteps(t, d, up+" unknown next_target", "gpt/openai ok done")
				if d.Attempts[0].Evidence != "translate" {
					t.Errorf("%s: first attempt %+v", first, d.Attempts[0])
				}
			}
			if n := fs["anthropic"].Calls() + fs["gemini"].Calls(); n != 0 {
				t.Errorf("Claude and Gemini got %d requests, want none", n)
			}
			p := c.p
			p.Model = "no-openai"
			_, err := cl.Chat.Completions.New(context.Background(), p)
			var ae *openai.Error
			if !errors.As(err, &ae) || ae.StatusCode != 400 || !strings.Contains(ae.Message, c.member) {
				t.Errorf("no-openai: %v, want a 400 naming %s", err, c.member)
			}
		})
	}
}

// A Responses client asking for the answer's log-probabilities
// (include "message.output_text.logprobs", with top_logprobs) relies on
// getting them: OpenAI's answer carries them in each output_text part.
// A translated answer has none (Claude and Gemini give none, and the door
// does not carry a chat answer's back), so the door refuses the member
// with a 400 naming include, as it refuses other members it cannot honour.
// Before, it was dropped and the answer came with "logprobs": [], which
// reads as an answer without tokens. A route whose first target serves the
// Responses API itself gets the body as sent; include values Detour has
// no business with (Codex's reasoning.encrypted_content) still translate.
func TestResponsesLogprobsIncludeRefused(t *testing.T) {
	fs := strictFakes(t, "Hello")
	g := start(t, fidelityCfg, fs)
	cl := openaiSDK(g)
	for _, model := range []string{"gpt", "claude", "gem", "claude-first"} {
		_, err := cl.Responses.New(context.Background(), responses.ResponseNewParams{Model: model,
			Input:       responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
			Include:     []responses.ResponseIncludable{responses.ResponseIncludableMessageOutputTextLogprobs},
			TopLogprobs: openai.Int(3)})
		var ae *openai.Error
		if !errors.As(err, &ae) || ae.StatusCode != 400 || ae.Param != "include" || ae.Code != "unsupported_parameter" {
			t.Errorf("%s: %v, want a 400 with param include", model, err)
		}
	}
	if n := fs["openai"].Calls() + fs["anthropic"].Calls() + fs["gemini"].Calls(); n != 0 {
		t.Errorf("the upstreams got %d requests, want none", n)
	}
	r, err := cl.Responses.New(context.Background(), responses.ResponseNewParams{Model: "gpt",
		Input:   responses.ResponseNewParamsInputUnion{OfString: openai.String("hi")},
		Include: []responses.ResponseIncludable{responses.ResponseIncludableReasoningEncryptedContent}},
		option.WithJSONSet("store", false))
	if err != nil || r.OutputText() != "Hello" {
		t.Errorf("reasoning.encrypted_content: %v", err)
	}

	// A responses: true target serves it as sent.
	native := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Body: nativeAnswer}),
		"anthropic": script(ok("x", "x")),
	})
	gn := start(t, responsesNativeCfg, native)
	body := `{"model":"agent","input":"hi","include":["message.output_text.logprobs"],"top_logprobs":3}`
	rn := gn.raw(t, "POST", "/v1/responses", body)
	rn.wantStatus(t, 200)
	if got := string(native["openai"].Requests()[0].Body); got != strings.Replace(body, `"agent"`, `"gpt-5-mini"`, 1) {
		t.Errorf("the native target got %s", got)
	}
}
