package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Structured output on a Claude target (docs/doors.md, "Structured output
// on Claude"): the official OpenAI Go SDK sends response_format json_schema
// (at /v1/responses, text.format); the Anthropic fake gets a forced answer
// tool with the client's schema and answers in Anthropic's documented
// tool_use shape (the adapter's testdata json_answer); the SDK's message
// content is the JSON answer, whole and streamed.

// calendarSchema is the schema of OpenAI's structured outputs guide
// (https://platform.openai.com/docs/guides/structured-outputs, "Getting a
// structured response": CalendarEvent).
func calendarSchema() map[string]any {
	return map[string]any{"type": "object", "additionalProperties": false,
		"required": []string{"name", "date", "participants"},
		"properties": map[string]any{"name": map[string]any{"type": "string"}, "date": map[string]any{"type": "string"},
			"participants": map[string]any{"type": "array", "items": map[string]any{"type": "string"}}}}
}

// calendarEvent is what the answer must decode to: every required member,
// no other (additionalProperties false).
type calendarEvent struct {
	Name         string   `json:"name"`
	Date         string   `json:"date"`
	Participants []string `json:"participants"`
}

// wantCalendarEvent decodes content as the schema says and checks it holds
// the fake's answer.
func wantCalendarEvent(t *testing.T, content string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader([]byte(content)))
	dec.DisallowUnknownFields()
	var v map[string]json.RawMessage
	if err := json.Unmarshal([]byte(content), &v); err != nil {
		t.Fatalf("content is not a JSON object: %v: %q", err, content)
	}
	for _, k := range []string{"name", "date", "participants"} {
		if _, ok := v[k]; !ok {
			t.Errorf("content lacks required %q: %s", k, content)
		}
	}
	var e calendarEvent
	if err := dec.Decode(&e); err != nil {
		t.Fatalf("content does not match the schema: %v: %q", err, content)
	}
	if e.Name != "Science Fair" || e.Date != "Friday" || len(e.Participants) != 2 || e.Participants[0] != "Alice" || e.Participants[1] != "Bob" {
		t.Errorf("content %q", content)
	}
}

// structuredReq is the part of the Messages request that asks for the
// answer tool.
type structuredReq struct {
	Tools []struct {
		Name        string          `json:"name"`
		InputSchema json.RawMessage `json:"input_schema"`
	} `json:"tools"`
	ToolChoice struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tool_choice"`
}

// wantAnswerTool checks that every request the fake got forces the answer
// tool, with the client's schema as its input_schema.
func wantAnswerTool(t *testing.T, fake *upstreamtest.Server) {
	t.Helper()
	want, _ := json.Marshal(calendarSchema())
	reqs := fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("the Anthropic fake got no request")
	}
	for _, r := range reqs {
		var b structuredReq
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if len(b.Tools) != 1 || b.Tools[0].Name != "detour_json_answer" || b.ToolChoice.Type != "tool" || b.ToolChoice.Name != "detour_json_answer" {
			t.Fatalf("no forced answer tool: %s", r.Body)
		}
		var got, exp any
		_ = json.Unmarshal(b.Tools[0].InputSchema, &got)
		_ = json.Unmarshal(want, &exp)
		g, _ := json.Marshal(got)
		e, _ := json.Marshal(exp)
		if !bytes.Equal(g, e) {
			t.Errorf("input_schema %s, want %s", b.Tools[0].InputSchema, want)
		}
	}
}

func calendarFormat() openai.ChatCompletionNewParamsResponseFormatUnion {
	return openai.ChatCompletionNewParamsResponseFormatUnion{OfJSONSchema: &shared.ResponseFormatJSONSchemaParam{
		JSONSchema: shared.ResponseFormatJSONSchemaJSONSchemaParam{Name: "calendar_event", Strict: openai.Bool(true), Schema: calendarSchema()}}}
}

const calendarPrompt = "Alice and Bob are going to a science fair on Friday."

func TestSDKStructuredOutputClaude(t *testing.T) {
	whole := upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/json_answer.json")}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(whole), "gemini": script(whole)})
	g := start(t, sdkDialectCfg, fs)
	p := ask("claude", calendarPrompt, false)
	p.ResponseFormat = calendarFormat()
	var resp *http.Response
	c, err := sdk(g).Chat.Completions.New(context.Background(), p, option.WithResponseInto(&resp))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Choices) != 1 {
		t.Fatalf("choices: %+v", c.Choices)
	}
	ch := c.Choices[0]
	wantCalendarEvent(t, ch.Message.Content)
	if ch.FinishReason != "stop" || len(ch.Message.ToolCalls) != 0 || ch.Message.Refusal != "" {
		t.Errorf("finish %q tool calls %+v", ch.FinishReason, ch.Message.ToolCalls)
	}
	if c.Usage.PromptTokens != 412 || c.Usage.CompletionTokens != 48 || resp.Header.Get("X-Detour-Provider") != "anthropic" {
		t.Errorf("usage %+v provider %q", c.Usage, resp.Header.Get("X-Detour-Provider"))
	}
	anthropicRequests(t, fs["anthropic"], false)
	wantAnswerTool(t, fs["anthropic"])
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic ok done")
}

func TestSDKStructuredOutputClaudeStream(t *testing.T) {
	answer := upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/json_answer.sse")))}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(answer), "gemini": script(answer)})
	g := start(t, sdkDialectCfg, fs)
	p := ask("claude", calendarPrompt, true)
	p.ResponseFormat = calendarFormat()
	acc, err := accumulate(t, sdk(g).Chat.Completions.NewStreaming(context.Background(), p))
	if err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 {
		t.Fatalf("accumulated: %+v", acc.ChatCompletion)
	}
	ch := acc.Choices[0]
	wantCalendarEvent(t, ch.Message.Content)
	if ch.FinishReason != "stop" || len(ch.Message.ToolCalls) != 0 {
		t.Errorf("finish %q tool calls %+v", ch.FinishReason, ch.Message.ToolCalls)
	}
	if acc.Usage.PromptTokens != 412 || acc.Usage.CompletionTokens != 48 {
		t.Errorf("usage %+v", acc.Usage)
	}
	anthropicRequests(t, fs["anthropic"], true)
	wantAnswerTool(t, fs["anthropic"])
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic ok done")
}

// The Responses door maps text.format json_schema to response_format: the
// same answer tool, and the JSON is the response's output text.
func TestSDKStructuredOutputClaudeResponses(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		answer := upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/json_answer.json")}
		if stream {
			name = "stream"
			answer = upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/json_answer.sse")))}
		}
		t.Run(name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(answer), "gemini": script(answer)})
			g := start(t, sdkDialectCfg, fs)
			p := say("claude", calendarPrompt)
			p.Instructions = openai.String(sdkSystem)
			p.Text = responses.ResponseTextConfigParam{Format: responses.ResponseFormatTextConfigParamOfJSONSchema("calendar_event", calendarSchema())}
			var r *responses.Response
			var err error
			if stream {
				r, _, err = streamResponse(t, g, p)
			} else {
				r, err = sdk(g).Responses.New(context.Background(), p)
			}
			if err != nil {
				t.Fatal(err)
			}
			wantCalendarEvent(t, r.OutputText())
			if r.Status != "completed" {
				t.Errorf("status %q", r.Status)
			}
			for _, it := range r.Output {
				if it.Type == "function_call" {
					t.Errorf("a function_call item: %+v", it)
				}
			}
			anthropicRequests(t, fs["anthropic"], stream)
			wantAnswerTool(t, fs["anthropic"])
		})
	}
}

// A structured stream from Claude cut after its first fragment is continued
// by prefill at the next Claude target: that request carries the delivered
// JSON as a trailing assistant turn and no answer tool (a forced tool would
// start the JSON afresh), Claude goes on with the text, and the client
// assembles one JSON answer.
func TestSDKStructuredOutputClaudeContinued(t *testing.T) {
	evs := sseBlocks(string(testdata(t, "anthropic", "stream/json_answer.sse")))
	// message_start, content_block_start, ping, the empty and the first
	// fragment; then the connection drops.
	cut := upstreamtest.Step{Events: evs[:5], Cut: true}
	const delivered = `{"name": "Scien`
	rest := []string{`ce Fair", "date": `, `"Friday", "participants": ["Alice", "Bob"]}`}
	second := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var b struct {
			structuredReq
			Messages []struct {
				Role    string          `json:"role"`
				Content json.RawMessage `json:"content"`
			} `json:"messages"`
		}
		if err := json.Unmarshal(r.Body, &b); err != nil || len(b.Messages) == 0 {
			t.Errorf("second: request %s", r.Body)
			return upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}`}
		}
		if last := b.Messages[len(b.Messages)-1]; last.Role != "assistant" || text(last.Content) != delivered {
			t.Errorf("second: no prefill of %q: %s", delivered, r.Body)
		}
		if b.ToolChoice.Type == "tool" {
			return upstreamtest.Step{Events: evs} // forced: the whole answer afresh, in the tool's input
		}
		return upstreamtest.Step{Events: anthropicStream(rest)}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"one": script(cut), "two": second})
	g := start(t, `
providers:
  - {name: one, dialect: anthropic, base_url: "{one}", api_key: `+secret+`}
  - {name: two, dialect: anthropic, base_url: "{two}", api_key: `+secret+`}
targets:
  - {name: first, model: claude-sonnet-4-5, providers: [one]}
  - {name: second, model: claude-haiku-4-5, providers: [two]}
routes:
  - {name: r, targets: [first, second], on_stream_cut: continue}
`, fs)
	p := ask("r", calendarPrompt, true)
	p.ResponseFormat = calendarFormat()
	acc, err := accumulate(t, sdk(g).Chat.Completions.NewStreaming(context.Background(), p))
	if err != nil {
		t.Fatal(err)
	}
	if len(acc.Choices) != 1 || acc.Choices[0].FinishReason != "stop" || len(acc.Choices[0].Message.ToolCalls) != 0 {
		t.Fatalf("accumulated: %+v", acc.ChatCompletion)
	}
	wantCalendarEvent(t, acc.Choices[0].Message.Content)
	wantAnswerTool(t, fs["one"])
	if fs["two"].Calls() != 1 {
		t.Errorf("second target called %d times", fs["two"].Calls())
	}
	rec := g.recs.wait(t, 1)
	wantSteps(t, rec, "first/one server_error next_target", "second/two ok done")
	wantCont(t, rec.Attempts[1], "prefill", len(delivered), "server_error")
}

// A client tool that takes the answer tool's reserved name cannot go to a
// Claude target (its calls would come back as the content): a translation
// failure, so the route moves on to a target that takes the tool as is,
// and the Anthropic provider is neither called nor cooled.
func TestSDKReservedToolNameMovesOn(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(ok("never", "never")),
		"openai":    script(ok("gpt-4o-mini-2024-07-18", "done")),
	})
	g := start(t, sdkCfg, fs)
	p := hello("deep")
	p.Tools = []openai.ChatCompletionToolUnionParam{openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{Name: "detour_json_answer"})}
	c, err := sdk(g).Chat.Completions.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if c.Choices[0].Message.Content != "done" {
		t.Errorf("content %q", c.Choices[0].Message.Content)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic unknown next_target", "gpt/openai ok done")
	if d.Attempts[0].Evidence != "translate" || fs["anthropic"].Calls() != 0 {
		t.Errorf("attempt %+v, anthropic called %d times", d.Attempts[0], fs["anthropic"].Calls())
	}
}
