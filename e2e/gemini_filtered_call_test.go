package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A Gemini stream that calls a function and then ends with a filter's
// finishReason (SAFETY): openai-go's accumulator was handed a finished
// tool call and finish_reason tool_calls, so an app ran the call the
// filter flagged and never saw the filter. The stream now ends in an
// error the SDK raises, the record says refusal, and nothing is retried
// elsewhere (refusal does not fail over by default). The call's chunk
// and the filter's come from Gemini's documented shapes
// (https://ai.google.dev/api/generate-content#FinishReason, the
// function-calling guide's functionCall part).
func TestGeminiFilterAfterAFunctionCallFailsTheStream(t *testing.T) {
	call := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}}}]},"index":0}],"modelVersion":"gemini-2.0-flash","responseId":"r1"}`
	filtered := `{"candidates":[{"content":{"role":"model","parts":[]},"finishReason":"SAFETY","index":0,"safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH","blocked":true}]}],"usageMetadata":{"promptTokenCount":58,"candidatesTokenCount":8,"totalTokenCount":66},"modelVersion":"gemini-2.0-flash","responseId":"r1"}`
	// The call and the filter in one chunk, as a candidate ends that
	// called a function and was flagged at once.
	both := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}}}]},"finishReason":"SAFETY","index":0}],"usageMetadata":{"promptTokenCount":58,"candidatesTokenCount":8,"totalTokenCount":66},"modelVersion":"gemini-2.0-flash","responseId":"r1"}`
	for name, events := range map[string][]string{"apart": {call, filtered}, "one chunk": {both}} {
		t.Run(name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"anthropic": script(upstreamtest.Step{Status: 500, Body: `{"type":"error","error":{"type":"api_error","message":"unused"}}`}),
				"gemini":    script(upstreamtest.Step{Events: events}),
			})
			g := start(t, sdkDialectCfg, fs)
			p := ask("gem", "What's the temperature in London?", true)
			p.Tools = []openai.ChatCompletionToolUnionParam{temperatureTool()}
			s := sdk(g).Chat.Completions.NewStreaming(context.Background(), p)
			acc := openai.ChatCompletionAccumulator{}
			for s.Next() {
				acc.AddChunk(s.Current())
			}
			if s.Err() == nil {
				t.Fatalf("a filtered call reached the SDK as a success: %+v", acc.Choices)
			}
			for _, c := range acc.Choices {
				if c.FinishReason == "tool_calls" {
					t.Errorf("the SDK was told tool_calls for a call the filter flagged: %+v", c)
				}
			}
			d := g.recs.wait(t, 1)
			if d.Outcome != "error" || d.Class != "refusal" {
				t.Errorf("record outcome %q class %q, want error refusal", d.Outcome, d.Class)
			}
			if fs["anthropic"].Calls() != 0 {
				t.Errorf("a refusal was sent on to another target")
			}
		})
	}
}

// The same whole: the answer is a refusal (400, code content_filter), not
// a tool call to run; also when the call's part runs past the 4 KiB the
// classifier reads, its finishReason after it (review 60b: 5 KB of args, a
// write_file's content, or a Gemini 3 call's thoughtSignature of several
// KB, reached the client as a call to run).
func TestGeminiFilterAfterAFunctionCallWhole(t *testing.T) {
	big := strings.Repeat("x", 5000)
	for name, part := range map[string]string{
		"small":                `{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}}}`,
		"5 KB of args":         `{"functionCall":{"name":"get_current_temperature","args":{"location":"` + big + `"}}}`,
		"a Gemini 3 signature": `{"functionCall":{"name":"get_current_temperature","args":{"location":"London"}},"thoughtSignature":"` + big + `"}`,
	} {
		t.Run(name, func(t *testing.T) { filteredCallWhole(t, part) })
	}
}

func filteredCallWhole(t *testing.T, part string) {
	both := `{"candidates":[{"content":{"role":"model","parts":[` + part + `]},"finishReason":"SAFETY","index":0}],"usageMetadata":{"promptTokenCount":58,"candidatesTokenCount":8,"totalTokenCount":66},"modelVersion":"gemini-2.0-flash","responseId":"r1"}`
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Status: 500, Body: `{"type":"error","error":{"type":"api_error","message":"unused"}}`}),
		"gemini":    script(upstreamtest.Step{Body: both}),
	})
	g := start(t, sdkDialectCfg, fs)
	p := ask("gem", "What's the temperature in London?", false)
	p.Tools = []openai.ChatCompletionToolUnionParam{temperatureTool()}
	c, err := sdk(g).Chat.Completions.New(context.Background(), p)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusBadRequest || apiErr.Code != "content_filter" {
		calls, fr := 0, ""
		if c != nil && len(c.Choices) > 0 {
			calls, fr = len(c.Choices[0].Message.ToolCalls), c.Choices[0].FinishReason
		}
		t.Fatalf("a whole answer whose call the filter flagged: %d tool calls handed to the client, finish_reason %q, err %v; want a 400 content_filter", calls, fr, err)
	}
	if d := g.recs.wait(t, 1); d.Class != "refusal" {
		t.Errorf("record class %q, want refusal", d.Class)
	}
}
