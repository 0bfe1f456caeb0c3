package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The Anthropic Messages door (docs/doors.md, "Anthropic Messages") with
// the official Anthropic Go SDK as the client: passthrough to an Anthropic
// target, translation to an OpenAI target, failover between them, errors
// in Anthropic's envelope, count_tokens and the model list.

const messagesCfg = `
client_keys: [client-key-1]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
  - {name: cheap, targets: [gpt, claude]}
`

// sent records the bodies and headers the SDK sent to the gateway.
type sent struct {
	bodies  [][]byte
	headers []http.Header
}

// anthropicSDK is an Anthropic client of g with the client key in
// x-api-key (the SDK's way), no retries, and every request it sends
// recorded in s (nil: none).
func anthropicSDK(g *gateway, s *sent) *anthropic.Client {
	opts := []option.RequestOption{option.WithBaseURL(g.URL + "/"), option.WithAPIKey("client-key-1"), option.WithMaxRetries(0)}
	if s != nil {
		opts = append(opts, option.WithMiddleware(func(r *http.Request, next option.MiddlewareNext) (*http.Response, error) {
			if r.Body != nil {
				b, _ := io.ReadAll(r.Body)
				r.Body = io.NopCloser(bytes.NewReader(b))
				s.bodies = append(s.bodies, b)
				s.headers = append(s.headers, r.Header.Clone())
			}
			return next(r)
		}))
	}
	c := anthropic.NewClient(opts...)
	return &c
}

func askClaude(model, text string) anthropic.MessageNewParams {
	return anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 256,
		Messages: []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(text))}}
}

// anthropicMessage is an Anthropic Message answering text.
func anthropicMessage(model, text string) string {
	b, _ := json.Marshal(map[string]any{"id": "msg_fake1", "type": "message", "role": "assistant", "model": model,
		"content": []any{map[string]any{"type": "text", "text": text}}, "stop_reason": "end_turn", "stop_sequence": nil,
		"usage": map[string]any{"input_tokens": 11, "output_tokens": 3}})
	return string(b)
}

// anthropicEvents is an Anthropic stream answering parts, each event as
// "event: <type>\ndata: <json>".
func anthropicEvents(model string, parts ...string) []string {
	ev := func(typ string, v map[string]any) string {
		v["type"] = typ
		b, _ := json.Marshal(v)
		return "event: " + typ + "\ndata: " + string(b)
	}
	out := []string{
		ev("message_start", map[string]any{"message": map[string]any{"id": "msg_fake2", "type": "message", "role": "assistant",
			"model": model, "content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 11, "output_tokens": 1}}}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		ev("ping", map[string]any{}),
	}
	for _, p := range parts {
		out = append(out, ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": p}}))
	}
	return append(out,
		ev("content_block_stop", map[string]any{"index": 0}),
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 3}}),
		ev("message_stop", map[string]any{}))
}

func claudeText(m *anthropic.Message) string {
	var b strings.Builder
	for _, c := range m.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// An Anthropic target gets the SDK's body byte for byte but "model", with
// its anthropic-version and anthropic-beta, and the provider's key (never
// the client's); its answer reaches the SDK as it came.
func TestMessagesSDKPassthrough(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5-20250929", "hello from claude")}),
		"openai":    script(upstreamtest.Step{Status: 500}),
	})
	g := start(t, messagesCfg, fs)
	var s sent
	m, err := anthropicSDK(g, &s).Messages.New(context.Background(), askClaude("deep", "hi"),
		option.WithHeader("anthropic-beta", "interleaved-thinking-2025-05-14"))
	if err != nil {
		t.Fatal(err)
	}
	if claudeText(m) != "hello from claude" || m.Model != "claude-sonnet-4-5-20250929" || m.ID != "msg_fake1" || m.Usage.InputTokens != 11 {
		t.Errorf("message %+v", m)
	}
	got := fs["anthropic"].Requests()[0]
	want := bytes.Replace(s.bodies[0], []byte(`"model":"deep"`), []byte(`"model":"claude-sonnet-4-5"`), 1)
	if got.Path != "/v1/messages" || !bytes.Equal(got.Body, want) {
		t.Errorf("the Anthropic target got %s %s\nwant the SDK's body but model: %s", got.Path, got.Body, want)
	}
	if got.Header.Get("Anthropic-Version") != s.headers[0].Get("Anthropic-Version") || got.Header.Get("Anthropic-Beta") != "interleaved-thinking-2025-05-14" {
		t.Errorf("anthropic headers: got %q/%q, the SDK sent %q", got.Header.Get("Anthropic-Version"), got.Header.Get("Anthropic-Beta"), s.headers[0].Get("Anthropic-Version"))
	}
	if got.Header.Get("X-Api-Key") != secret || got.Header.Get("Authorization") != "" {
		t.Errorf("upstream credentials: x-api-key %q, authorization %q", got.Header.Get("X-Api-Key"), got.Header.Get("Authorization"))
	}
	rec := g.recs.wait(t, 1)
	if rec.API != "messages" || rec.Usage == nil || rec.Usage.PromptTokens != 11 {
		t.Errorf("record api %q usage %+v", rec.API, rec.Usage)
	}
}

// A byte-for-byte check with a body no SDK would write: spacing, escapes,
// number forms and fields Detour does not know reach Anthropic as sent.
func TestMessagesPassthroughBytes(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "ok")}),
		"openai":    script(upstreamtest.Step{Status: 500}),
	})
	g := start(t, messagesCfg, fs)
	body := "{\n  \"max_tokens\" : 1.0e2,\"model\": \"deep\" ,\n \"messages\":[{\"role\":\"user\",\"content\":\"\\u00e9t\\u00e9 \\\"q\\\"\"}],\"future_field\":{\"x\":[1,2]}}"
	r := g.raw(t, http.MethodPost, "/v1/messages", body, "x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
	r.wantStatus(t, 200)
	want := strings.Replace(body, `"deep"`, `"claude-sonnet-4-5"`, 1)
	if got := fs["anthropic"].Requests()[0].Body; string(got) != want {
		t.Errorf("the Anthropic target got\n%s\nwant\n%s", got, want)
	}
	if string(r.Body) != anthropicMessage("claude-sonnet-4-5", "ok") {
		t.Errorf("the client got %s", r.Body)
	}
}

// A stream from an Anthropic target reaches the SDK event by event.
func TestMessagesSDKStreamPassthrough(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "str", "eamed")},
			upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "raw")}),
		"openai": script(upstreamtest.Step{Status: 500}),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	st := c.Messages.NewStreaming(context.Background(), askClaude("deep", "hi"))
	var m anthropic.Message
	var types []string
	for st.Next() {
		ev := st.Current()
		types = append(types, ev.Type)
		if err := m.Accumulate(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if claudeText(&m) != "streamed" || m.StopReason != "end_turn" || m.ID != "msg_fake2" {
		t.Errorf("message %q stop %q id %q", claudeText(&m), m.StopReason, m.ID)
	}
	// (the SDK does not hand on pings)
	if got := strings.Join(types, ","); got != "message_start,content_block_start,content_block_delta,content_block_delta,content_block_stop,message_delta,message_stop" {
		t.Errorf("events %s", got)
	}
	if !fs["anthropic"].Requests()[0].Streamed() {
		t.Error("the Anthropic target was not asked for a stream")
	}
	// On the wire: the upstream's events exactly, ping included.
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"deep","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		"x-api-key", "client-key-1")
	if want := strings.Join(anthropicEvents("claude-sonnet-4-5", "raw"), "\n\n") + "\n\n"; string(r.Body) != want {
		t.Errorf("the client got\n%s\nwant\n%s", r.Body, want)
	}
	if r.Header.Get("Content-Type") != "text/event-stream" || r.Header.Get("X-Detour-Target") != "claude" {
		t.Errorf("headers %v", r.Header)
	}
}

// An overloaded Anthropic target (529 overloaded_error, retried once) fails
// over to the OpenAI target, which gets the translation; the SDK gets a
// Message.
func TestMessagesSDKFailoverToOpenAI(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(corpus(t, "anthropic-overloaded-529")),
		"openai":    script(ok("gpt-4o-mini-2024-07-18", "hello from the backup")),
	})
	g := start(t, messagesCfg, fs)
	m, err := anthropicSDK(g, nil).Messages.New(context.Background(), askClaude("deep", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if claudeText(m) != "hello from the backup" || m.StopReason != "end_turn" || m.Model != "gpt-4o-mini-2024-07-18" {
		t.Errorf("message %+v", m)
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic server_error retry", "claude/anthropic server_error next_target", "gpt/openai ok done")
	got := fs["openai"].Requests()[0]
	if got.Path != "/chat/completions" || !bytes.Contains(got.Body, []byte(`"model":"gpt-4o-mini"`)) || !bytes.Contains(got.Body, []byte(`"max_tokens":256`)) { // not a reasoning model: max_tokens, the name every OpenAI-compatible server reads (probe 53a)
		t.Errorf("the OpenAI target got %s %s", got.Path, got.Body)
	}
}

// The same failover for a stream: the SDK reads the encoder's Anthropic
// events of the OpenAI answer.
func TestMessagesSDKStreamFailoverToOpenAI(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(corpus(t, "anthropic-overloaded-529")),
		"openai":    script(okStream("gpt-4o-mini-2024-07-18", "stream", "ed ", "backup")),
	})
	g := start(t, messagesCfg, fs)
	st := anthropicSDK(g, nil).Messages.NewStreaming(context.Background(), askClaude("deep", "hi"))
	var m anthropic.Message
	for st.Next() {
		if err := m.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	if claudeText(&m) != "streamed backup" || m.StopReason != "end_turn" {
		t.Errorf("message %q stop %q", claudeText(&m), m.StopReason)
	}
	wantSteps(t, g.recs.wait(t, 1), "claude/anthropic server_error retry", "claude/anthropic server_error next_target", "gpt/openai ok done")
}

// openAIToolCall is a chat completion calling get_weather.
const openAIToolCall = `{"id":"chatcmpl-t","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":20,"completion_tokens":5,"total_tokens":25}}`

// A tool-use round trip through a translated (OpenAI) target: the SDK
// gets a tool_use block, sends its tool_result back, and the OpenAI
// target sees the call and the result as chat messages.
func TestMessagesSDKToolRoundTrip(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Body: openAIToolCall}, ok("gpt-4o-mini", "sunny in Paris")),
		"anthropic": script(upstreamtest.Step{Status: 500}),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	params := askClaude("cheap", "weather in Paris?")
	params.Tools = []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"city": map[string]any{"type": "string"}}, Required: []string{"city"}}, "get_weather")}
	m, err := c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if m.StopReason != "tool_use" || len(m.Content) != 1 || m.Content[0].Type != "tool_use" || m.Content[0].Name != "get_weather" ||
		string(m.Content[0].Input) != `{"city":"Paris"}` {
		t.Fatalf("first answer %+v", m)
	}
	params.Messages = append(params.Messages, m.ToParam(),
		anthropic.NewUserMessage(anthropic.NewToolResultBlock(m.Content[0].ID, "18C and sunny", false)))
	m, err = c.Messages.New(context.Background(), params)
	if err != nil {
		t.Fatal(err)
	}
	if claudeText(m) != "sunny in Paris" {
		t.Errorf("second answer %+v", m)
	}
	var second struct {
		Messages []struct {
			Role       string `json:"role"`
			Content    any    `json:"content"`
			ToolCallID string `json:"tool_call_id"`
			ToolCalls  []struct {
				ID       string `json:"id"`
				Function struct{ Name, Arguments string }
			} `json:"tool_calls"`
		} `json:"messages"`
		Tools []struct {
			Function struct{ Name string } `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(fs["openai"].Requests()[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	ms := second.Messages
	if len(ms) != 3 || ms[1].Role != "assistant" || len(ms[1].ToolCalls) != 1 || ms[1].ToolCalls[0].ID != "call_1" ||
		ms[2].Role != "tool" || ms[2].ToolCallID != "call_1" || ms[2].Content != "18C and sunny" || second.Tools[0].Function.Name != "get_weather" {
		t.Errorf("the OpenAI target's second request: %s", fs["openai"].Requests()[1].Body)
	}
}

// Errors reach the SDK in Anthropic's envelope with the real status and
// Anthropic's type; the class travels in X-Detour-Class.
func TestMessagesSDKErrors(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(corpus(t, "openai-rate-limit-reached-tpm-429")),
		"anthropic": script(upstreamtest.Step{Status: 400, Body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages: roles must alternate"}}`}),
	})
	g := start(t, messagesCfg, fs)
	c := anthropicSDK(g, nil)
	for _, tc := range []struct {
		name, model string
		status      int
		typ         string
		class       string
		key         string
	}{
		{"unknown model", "nope", 404, "not_found_error", "", "client-key-1"},
		{"bad client key", "deep", 401, "authentication_error", "", "wrong"},
		{"upstream bad request", "claude", 400, "invalid_request_error", "bad_request", "client-key-1"},
		{"upstream rate limit", "gpt", 429, "rate_limit_error", "rate_limited", "client-key-1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var resp *http.Response
			_, err := c.Messages.New(context.Background(), askClaude(tc.model, "hi"), option.WithAPIKey(tc.key), option.WithResponseInto(&resp))
			var apiErr *anthropic.Error
			if !errors.As(err, &apiErr) {
				t.Fatalf("err = %v, want an *anthropic.Error", err)
			}
			if apiErr.StatusCode != tc.status || string(apiErr.Type()) != tc.typ || apiErr.Message == "" {
				t.Errorf("status %d type %q message %q, want %d %q", apiErr.StatusCode, apiErr.Type(), apiErr.Message, tc.status, tc.typ)
			}
			if got := apiErr.Response.Header.Get("X-Detour-Class"); got != tc.class {
				t.Errorf("X-Detour-Class %q, want %q", got, tc.class)
			}
			if tc.model == "nope" && !strings.Contains(apiErr.Message, "deep") {
				t.Errorf("the 404 does not name the known models: %q", apiErr.Message)
			}
		})
	}
}

// The gateway's own refusals on this door are in Anthropic's envelope too:
// bad JSON, a repeated member, the wrong content type, a body too large.
func TestMessagesOwnErrors(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(), "openai": script()})
	g := start(t, "max_body_bytes: 1024\n"+messagesCfg, fs)
	for _, tc := range []struct {
		name, body string
		headers    []string
		status     int
		typ        string
	}{
		{"bad JSON", `{"model":`, nil, 400, "invalid_request_error"},
		{"repeated member", `{"model":"deep","model":"cheap","max_tokens":5,"messages":[]}`, nil, 400, "invalid_request_error"},
		{"case variant", `{"model":"deep","System":"x","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, nil, 400, "invalid_request_error"},
		{"no max_tokens (translated route)", `{"model":"cheap","messages":[{"role":"user","content":"hi"}]}`, nil, 400, "invalid_request_error"},
		{"content type", `{}`, []string{"Content-Type", "text/plain"}, 415, "invalid_request_error"},
		{"too large", `{"model":"deep","pad":"` + strings.Repeat("x", 2000) + `"}`, nil, 413, "request_too_large"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/messages", tc.body, append([]string{"x-api-key", "client-key-1"}, tc.headers...)...)
			r.wantStatus(t, tc.status)
			var env struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if json.Unmarshal(r.Body, &env) != nil || env.Type != "error" || env.Error.Type != tc.typ || env.Error.Message == "" {
				t.Errorf("body %s, want Anthropic's envelope with type %s", r.Body, tc.typ)
			}
		})
	}
	if n := fs["anthropic"].Calls() + fs["openai"].Calls(); n != 0 {
		t.Errorf("%d upstream calls for refused requests", n)
	}
}

// For a client key with a budget, the native stream's end (the upstream's
// message_stop) waits until the spend has landed, and then arrives once, as
// the last event: the wire is the upstream's events exactly, the SDK reads
// the whole Message, and the key's next request meets the spend.
func TestMessagesSDKStreamMeteredKey(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "raw")},
			upstreamtest.Step{Events: anthropicEvents("claude-sonnet-4-5", "str", "eamed")}),
		"openai": script(upstreamtest.Step{Status: 500}),
	})
	cfg := strings.Replace(messagesCfg, "client_keys: [client-key-1]",
		"client_keys: [{name: team, key: client-key-1, budget: {usd_per_day: 0.00001}}, {name: wide, key: client-key-2, budget: {usd_per_day: 100}}]", 1)
	cfg = strings.Replace(cfg, "providers: [anthropic]}", "providers: [anthropic], price: {input: 1000, output: 1000}}", 1)
	g := start(t, cfg, fs)
	// On the wire, for a metered key: the upstream's events exactly,
	// message_stop once, last.
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"deep","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		"x-api-key", "client-key-2")
	if want := strings.Join(anthropicEvents("claude-sonnet-4-5", "raw"), "\n\n") + "\n\n"; string(r.Body) != want {
		t.Errorf("the client got\n%s\nwant\n%s", r.Body, want)
	}
	st := anthropicSDK(g, nil).Messages.NewStreaming(context.Background(), askClaude("deep", "hi"))
	var m anthropic.Message
	for st.Next() {
		if err := m.Accumulate(st.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := st.Err(); err != nil || claudeText(&m) != "streamed" || m.StopReason != "end_turn" {
		t.Fatalf("message %q stop %q: %v", claudeText(&m), m.StopReason, err)
	}
	// The key's budget is spent: its next request is refused before any
	// upstream is called.
	r = g.raw(t, http.MethodPost, "/v1/messages", `{"model":"deep","max_tokens":5,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
		"x-api-key", "client-key-1")
	r.wantStatus(t, http.StatusTooManyRequests)
	if n := fs["anthropic"].Calls(); n != 2 {
		t.Errorf("anthropic calls %d, want 2", n)
	}
}
