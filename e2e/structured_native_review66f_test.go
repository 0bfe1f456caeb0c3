package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 66f: structured output at the Claude models that refuse forced
// tool use (Sonnet 5.5, Opus 5.5, Fable 5.1) is Anthropic's JSON outputs,
// output_config.format. The loopback Anthropic refuses a forced
// tool_choice for those models with the words their pages publish
// ('tool_choice: type "tool" and "any" are not supported for this model.':
// platform.claude.com/docs/en/models/fable-5-1/whats-new-fable-5-1,
// .../sonnet-5-5/migration-guide), refuses a JSON outputs schema with an
// object that is not closed ("additionalProperties … must be set to false
// for objects": .../build-with-claude/structured-outputs, "JSON Schema
// limitations"; it publishes no words, so the fake claims none), and
// answers one as that page shows: the JSON in the text, after the thinking
// block these models write first, stop_reason end_turn; streamed as text
// deltas.

const nativeCfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: sonnet55, model: claude-sonnet-5-5, providers: [anthropic]}
  - {name: opus55, model: claude-opus-5-5, providers: [anthropic]}
  - {name: fable51, model: claude-fable-5-1, providers: [anthropic]}
`

const calendarJSON = `{"name":"Science Fair","date":"Friday","participants":["Alice","Bob"]}`

// nativeReq is the part of a Messages body the fake reads.
type nativeReq struct {
	Model      string
	Stream     bool
	Tools      []struct{ Name string }
	ToolChoice *struct{ Type string } `json:"tool_choice"`
	Output     *struct {
		Format *struct {
			Type   string
			Schema json.RawMessage
		}
	} `json:"output_config"`
}

// closed reports whether every object schema in s says
// "additionalProperties": false.
func closed(s any) bool {
	switch v := s.(type) {
	case map[string]any:
		if v["type"] == "object" && v["additionalProperties"] != false {
			return false
		}
		for _, e := range v {
			if !closed(e) {
				return false
			}
		}
	case []any:
		for _, e := range v {
			if !closed(e) {
				return false
			}
		}
	}
	return true
}

func nativeAnthropic() upstreamtest.Script {
	refuse := func(msg string) upstreamtest.Step {
		b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]string{"type": "invalid_request_error", "message": msg}})
		return upstreamtest.Step{Status: 400, Body: string(b)}
	}
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req nativeReq
		if json.Unmarshal(r.Body, &req) != nil {
			return refuse("invalid JSON")
		}
		if c := req.ToolChoice; c != nil && (c.Type == "any" || c.Type == "tool") {
			return refuse(`tool_choice: type "tool" and "any" are not supported for this model.`)
		}
		if req.Output == nil || req.Output.Format == nil {
			return upstreamtest.Step{Body: anthropicMessage(req.Model, "Sure! Here is the event: Science Fair, Friday.")}
		}
		var schema any
		if req.Output.Format.Type != "json_schema" || json.Unmarshal(req.Output.Format.Schema, &schema) != nil || !closed(schema) {
			return refuse("")
		}
		if !req.Stream {
			b, _ := json.Marshal(map[string]any{"id": "msg_native1", "type": "message", "role": "assistant", "model": req.Model,
				"content": []any{
					map[string]any{"type": "thinking", "thinking": "", "signature": "sig"},
					map[string]any{"type": "text", "text": calendarJSON},
				},
				"stop_reason": "end_turn", "stop_sequence": nil, "usage": map[string]any{"input_tokens": 120, "output_tokens": 40}})
			return upstreamtest.Step{Body: string(b)}
		}
		ev := func(kind string, v map[string]any) string {
			v["type"] = kind
			b, _ := json.Marshal(v)
			return "event: " + kind + "\ndata: " + string(b)
		}
		delta := func(text string) string {
			return ev("content_block_delta", map[string]any{"index": 1, "delta": map[string]any{"type": "text_delta", "text": text}})
		}
		return upstreamtest.Step{Events: []string{
			ev("message_start", map[string]any{"message": map[string]any{"id": "msg_native1", "type": "message", "role": "assistant",
				"model": req.Model, "content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 120, "output_tokens": 1}}}),
			ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "thinking", "thinking": "", "signature": ""}}),
			ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "signature_delta", "signature": "sig"}}),
			ev("content_block_stop", map[string]any{"index": 0}),
			ev("content_block_start", map[string]any{"index": 1, "content_block": map[string]any{"type": "text", "text": ""}}),
			delta(`{"name":"Science Fair",`),
			delta(`"date":"Friday",`),
			delta(`"participants":["Alice","Bob"]}`),
			ev("content_block_stop", map[string]any{"index": 1}),
			ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 40}}),
			ev("message_stop", map[string]any{}),
		}}
	}
}

// wantNativeFormat checks every request the fake got: the client's schema
// as output_config.format, no answer tool, no tool_choice.
func wantNativeFormat(t *testing.T, fake *upstreamtest.Server) {
	t.Helper()
	want, _ := json.Marshal(calendarSchema())
	reqs := fake.Requests()
	if len(reqs) == 0 {
		t.Fatal("the Anthropic fake got no request")
	}
	for _, r := range reqs {
		var b nativeReq
		if err := json.Unmarshal(r.Body, &b); err != nil {
			t.Fatal(err)
		}
		if b.Output == nil || b.Output.Format == nil || b.Output.Format.Type != "json_schema" || len(b.Tools) != 0 || b.ToolChoice != nil {
			t.Fatalf("not JSON outputs: %s", r.Body)
		}
		var got, exp any
		_ = json.Unmarshal(b.Output.Format.Schema, &got)
		_ = json.Unmarshal(want, &exp)
		g, _ := json.Marshal(got)
		e, _ := json.Marshal(exp)
		if !bytes.Equal(g, e) {
			t.Errorf("schema %s, want %s", b.Output.Format.Schema, want)
		}
	}
}

// openai-go's chat completions with a json_schema response_format, whole
// and streamed: the content is the JSON, finish_reason stop, no tool call.
func TestSDKNativeStructuredChatReview66f(t *testing.T) {
	for _, target := range []string{"sonnet55", "opus55", "fable51"} {
		for _, stream := range []bool{false, true} {
			name := target + "/whole"
			if stream {
				name = target + "/stream"
			}
			t.Run(name, func(t *testing.T) {
				fs := fakes(t, map[string]upstreamtest.Script{"anthropic": nativeAnthropic()})
				g := start(t, nativeCfg, fs)
				p := ask(target, calendarPrompt, stream)
				p.ResponseFormat = calendarFormat()
				var ch openai.ChatCompletionChoice
				var usage openai.CompletionUsage
				if stream {
					acc, err := accumulate(t, sdk(g).Chat.Completions.NewStreaming(context.Background(), p))
					if err != nil {
						t.Fatal(err)
					}
					if len(acc.Choices) != 1 {
						t.Fatalf("accumulated: %+v", acc.ChatCompletion)
					}
					ch, usage = acc.Choices[0], acc.Usage
				} else {
					c, err := sdk(g).Chat.Completions.New(context.Background(), p)
					if err != nil {
						t.Fatal(err)
					}
					if len(c.Choices) != 1 {
						t.Fatalf("choices: %+v", c.Choices)
					}
					ch, usage = c.Choices[0], c.Usage
				}
				wantCalendarEvent(t, ch.Message.Content)
				if ch.FinishReason != "stop" || len(ch.Message.ToolCalls) != 0 || ch.Message.Refusal != "" {
					t.Errorf("finish %q tool calls %+v refusal %q", ch.FinishReason, ch.Message.ToolCalls, ch.Message.Refusal)
				}
				if usage.PromptTokens != 120 || usage.CompletionTokens != 40 {
					t.Errorf("usage %+v", usage)
				}
				wantNativeFormat(t, fs["anthropic"])
			})
		}
	}
}

// The Responses door's text.format json_schema is the same JSON outputs;
// the JSON is the response's output text, whole and streamed.
func TestSDKNativeStructuredResponsesReview66f(t *testing.T) {
	for _, stream := range []bool{false, true} {
		name := "whole"
		if stream {
			name = "stream"
		}
		t.Run(name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"anthropic": nativeAnthropic()})
			g := start(t, nativeCfg, fs)
			p := say("fable51", calendarPrompt)
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
			wantNativeFormat(t, fs["anthropic"])
		})
	}
}

// A schema JSON outputs cannot take (a dictionary: fitting would close it
// to {}) keeps review 66d's answer tool under auto at those models, and
// the fake, which answers it in prose, is still reached with a 200.
func TestNativeStructuredFallbackReview66f(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": nativeAnthropic()})
	g := start(t, nativeCfg, fs)
	schema := `{"type":"object","properties":{"scores":{"type":"object","additionalProperties":{"type":"integer"}}},"required":["scores"]}`
	r := g.post(t, "sonnet55", `,"response_format":{"type":"json_schema","json_schema":{"name":"s","schema":`+schema+`}}`)
	if r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	var b nativeReq
	if err := json.Unmarshal(lastRaw(t, fs["anthropic"]), &b); err != nil {
		t.Fatal(err)
	}
	if b.Output != nil || len(b.Tools) != 1 || b.Tools[0].Name != "detour_json_answer" || b.ToolChoice == nil || b.ToolChoice.Type != "auto" {
		t.Errorf("sent %s", lastRaw(t, fs["anthropic"]))
	}
}
