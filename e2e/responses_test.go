package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// /v1/responses through a real gateway, with the official OpenAI Go SDK's
// Responses client: translated to each target's dialect, failing over
// across dialects, errors in the OpenAI envelope (docs/doors.md).

const responsesCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: agent, targets: [gpt, claude]}
`

func say(model, text string) responses.ResponseNewParams {
	return responses.ResponseNewParams{Model: model, Input: responses.ResponseNewParamsInputUnion{OfString: openai.String(text)}}
}

func TestResponsesPlain(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(ok("gpt-4o-mini-2024-07-18", "hello from gpt")),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, responsesCfg, fs)
	p := say("agent", "hi")
	p.Instructions = openai.String("be brief")
	r, err := sdk(g).Responses.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if r.OutputText() != "hello from gpt" || r.Status != "completed" || r.Model != "gpt-4o-mini-2024-07-18" || r.Instructions.OfString != "be brief" {
		t.Errorf("response: text %q status %q model %q instructions %+v", r.OutputText(), r.Status, r.Model, r.Instructions)
	}
	if r.Usage.TotalTokens != 7 {
		t.Errorf("usage: %+v", r.Usage)
	}
	// The upstream got canonical chat: instructions as a system message.
	var up struct {
		Model    string `json:"model"`
		Messages []struct{ Role, Content string }
	}
	if err := json.Unmarshal(fs["openai"].Requests()[0].Body, &up); err != nil {
		t.Fatal(err)
	}
	if up.Model != "gpt-4o-mini" || len(up.Messages) != 2 || up.Messages[0].Role != "system" || up.Messages[1].Content != "hi" {
		t.Errorf("upstream body: %s", fs["openai"].Requests()[0].Body)
	}
	d := g.recs.wait(t, 1)
	if d.API != "responses" {
		t.Errorf("decision api = %q, want responses", d.API)
	}
	wantSteps(t, d, "gpt/openai ok done")
}

// streamResponse runs a streamed request and feeds every event to the
// SDK's own accumulator, which rejects events out of protocol.
func streamResponse(t *testing.T, g *gateway, p responses.ResponseNewParams) (*responses.Response, []string, error) {
	t.Helper()
	s := sdk(g).Responses.NewStreaming(context.Background(), p)
	var acc responses.ResponseAccumulator
	var kinds []string
	for s.Next() {
		ev := s.Current()
		kinds = append(kinds, ev.Type)
		var sev responses.ResponsesServerEventUnion
		if err := json.Unmarshal([]byte(ev.RawJSON()), &sev); err != nil {
			t.Fatalf("%s: %v", ev.Type, err)
		}
		if err := acc.AddEvent(sev); err != nil {
			t.Fatalf("%s: the SDK's accumulator refused it: %v\n%s", ev.Type, err, ev.RawJSON())
		}
	}
	if err := s.Err(); err != nil {
		return nil, kinds, err
	}
	r, err := acc.ReconstructedResponse()
	return r, kinds, err
}

func TestResponsesStream(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(okStream("gpt-4o-mini-2024-07-18", "stream", "ed ", "answer")),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, responsesCfg, fs)
	r, kinds, err := streamResponse(t, g, say("agent", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if r.OutputText() != "streamed answer" || r.Status != "completed" {
		t.Errorf("accumulated: %q status %q", r.OutputText(), r.Status)
	}
	if kinds[0] != "response.created" || kinds[len(kinds)-1] != "response.completed" {
		t.Errorf("events: %v", kinds)
	}
	wantSteps(t, g.recs.wait(t, 1), "gpt/openai ok done")
}

// The first target fails (500 twice: a retry, then the next target); the
// Anthropic target answers in its own dialect; the SDK sees one response.
func TestResponsesFailoverToAnthropic(t *testing.T) {
	for _, stream := range []bool{false, true} {
		t.Run(map[bool]string{false: "whole", true: "stream"}[stream], func(t *testing.T) {
			anth := ok("x", "x")
			anth.Body = upstreamOf(t, "anthropic", "response/hello.json")
			if stream {
				anth = upstreamtest.Step{Events: sseBlocks(string(testdata(t, "anthropic", "stream/basic.sse")))}
			}
			fs := fakes(t, map[string]upstreamtest.Script{
				"openai":    script(corpus(t, "openai-model-overloaded-server-error-503")),
				"anthropic": script(anth),
			})
			g := start(t, responsesCfg, fs)
			var r *responses.Response
			var err error
			if stream {
				r, _, err = streamResponse(t, g, say("agent", "hi"))
			} else {
				r, err = sdk(g).Responses.New(context.Background(), say("agent", "hi"))
			}
			if err != nil {
				t.Fatal(err)
			}
			if r.OutputText() == "" || r.Status != "completed" || !strings.HasPrefix(r.Model, "claude") {
				t.Errorf("response: %q status %q model %q", r.OutputText(), r.Status, r.Model)
			}
			if n := len(fs["anthropic"].Requests()); n != 1 || fs["anthropic"].Requests()[0].Path != "/v1/messages" {
				t.Errorf("anthropic fake got %d requests", n)
			}
			wantSteps(t, g.recs.wait(t, 1), "gpt/openai server_error retry", "gpt/openai server_error next_target", "claude/anthropic ok done")
		})
	}
}

// A function call and its output, through an Anthropic target: the model's
// tool_use comes back as a function_call item, and the next request's
// function_call and function_call_output items reach Anthropic as tool_use
// and tool_result.
func TestResponsesFunctionCallRoundTrip(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(ok("x", "x")),
		"anthropic": script(upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/tool_use.json")}, upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")}),
	})
	g := start(t, responsesCfg, fs)
	weather := responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
		Name: "get_weather", Strict: openai.Bool(false),
		Parameters: map[string]any{"type": "object", "properties": map[string]any{"location": map[string]any{"type": "string"}}},
	}}
	p := say("claude", "weather in SF?")
	p.Tools = []responses.ToolUnionParam{weather}
	r, err := sdk(g).Responses.New(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	var call *responses.ResponseFunctionToolCall
	for _, it := range r.Output {
		if it.Type == "function_call" {
			c := it.AsFunctionCall()
			call = &c
		}
	}
	if call == nil || call.Name != "get_weather" || call.CallID != "toolu_01A09q90qw90lq917835lq9" || !strings.Contains(call.Arguments, "San Francisco") {
		t.Fatalf("output: %s", r.RawJSON())
	}
	next := responses.ResponseNewParams{Model: "claude", Tools: p.Tools, Input: responses.ResponseNewParamsInputUnion{OfInputItemList: responses.ResponseInputParam{
		responses.ResponseInputItemParamOfMessage("weather in SF?", responses.EasyInputMessageRoleUser),
		responses.ResponseInputItemParamOfFunctionCall(call.Arguments, call.CallID, call.Name),
		{OfFunctionCallOutput: &responses.ResponseInputItemFunctionCallOutputParam{CallID: openai.String(call.CallID),
			Output: responses.ResponseInputItemFunctionCallOutputOutputUnionParam{OfString: openai.String("18C and sunny")}}},
	}}}
	r2, err := sdk(g).Responses.New(context.Background(), next)
	if err != nil {
		t.Fatal(err)
	}
	if r2.OutputText() == "" {
		t.Errorf("second answer: %s", r2.RawJSON())
	}
	var up struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type      string          `json:"type"`
				ID        string          `json:"id"`
				ToolUseID string          `json:"tool_use_id"`
				Input     json.RawMessage `json:"input"`
				Content   json.RawMessage `json:"content"`
			} `json:"content"`
		} `json:"messages"`
	}
	body := fs["anthropic"].Requests()[1].Body
	if err := json.Unmarshal(body, &up); err != nil {
		t.Fatal(err)
	}
	if len(up.Messages) != 3 || up.Messages[1].Content[0].Type != "tool_use" || up.Messages[1].Content[0].ID != call.CallID ||
		up.Messages[2].Content[0].Type != "tool_result" || up.Messages[2].Content[0].ToolUseID != call.CallID ||
		!strings.Contains(string(up.Messages[2].Content[0].Content), "18C and sunny") {
		t.Errorf("anthropic got: %s", body)
	}
}

// store: true names the stateless design, as a 400 the SDK reports; the
// gateway's own errors keep their status and code.
func TestResponsesErrors(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("x", "x")), "anthropic": script(ok("x", "x"))})
	g := start(t, responsesCfg, fs)
	p := say("agent", "hi")
	p.Store = openai.Bool(true)
	_, err := sdk(g).Responses.New(context.Background(), p)
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "unsupported_parameter" || apiErr.Param != "store" ||
		!strings.Contains(apiErr.Message, "stateless") {
		t.Fatalf("store:true: %v", err)
	}
	p = say("agent", "hi")
	p.PreviousResponseID = openai.String("resp_1")
	if _, err := sdk(g).Responses.New(context.Background(), p); !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Param != "previous_response_id" {
		t.Errorf("previous_response_id: %v", err)
	}
	if _, err := sdk(g).Responses.New(context.Background(), say("nope", "hi")); !errors.As(err, &apiErr) || apiErr.StatusCode != 404 ||
		apiErr.Code != "model_not_found" || !strings.Contains(apiErr.Message, "agent") {
		t.Errorf("unknown model: %v", err)
	}
	for _, c := range []struct {
		ct     string
		status int
	}{{"text/plain", http.StatusUnsupportedMediaType}} {
		r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"agent","input":"hi"}`, "Content-Type", c.ct)
		r.wantStatus(t, c.status)
	}
	r := g.raw(t, http.MethodGet, "/v1/responses", "")
	r.wantStatus(t, http.StatusMethodNotAllowed)
	// A member the door reads, sent twice under names that differ only by
	// case, could be read either way by the upstream: refused, as on chat.
	r = g.raw(t, http.MethodPost, "/v1/responses", `{"model":"agent","input":"hi","INPUT":"other"}`, "Content-Type", "application/json")
	r.wantStatus(t, http.StatusBadRequest)
	r = g.raw(t, http.MethodPost, "/v1/embeddings", `{"model":"agent","input":"hi","Dimensions":8}`, "Content-Type", "application/json")
	r.wantStatus(t, http.StatusBadRequest)
	if fs["openai"].Calls()+fs["anthropic"].Calls() != 0 {
		t.Errorf("refused requests reached an upstream")
	}
}

// An upstream failure is the OpenAI envelope with the upstream's status and
// the class as code; after the commit point it is response.failed.
func TestResponsesUpstreamFailure(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(corpus(t, "openai-rate-limit-reached-tpm-429")),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, responsesCfg, fs)
	_, err := sdk(g).Responses.New(context.Background(), say("gpt", "hi"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Code != "rate_limit_exceeded" || apiErr.Type != "rate_limit_error" {
		t.Errorf("rate limited: %v", err)
	}
	if h := apiErr.Response.Header.Get("X-Detour-Class"); h != "rate_limited" {
		t.Errorf("X-Detour-Class = %q", h)
	}

	fs["openai"].SetScript(script(upstreamtest.Step{Events: chunks("gpt-4o-mini", "half an "), Cut: true}))
	s := sdk(g).Responses.NewStreaming(context.Background(), say("gpt", "hi"))
	var last responses.ResponseStreamEventUnion
	text := ""
	for s.Next() {
		last = s.Current()
		if last.Type == "response.output_text.delta" {
			text += last.Delta
		}
	}
	// openai-go raises at the error event (its nested "error", round 56),
	// before response.failed: the client learns the answer was cut.
	if err := s.Err(); text != "half an " || err == nil || !strings.Contains(err.Error(), "server_error") || !strings.Contains(err.Error(), "cut") {
		t.Fatalf("stream: text %q, last event %q, error %v; want the text so far, then the cut as an error", text, last.Type, err)
	}
}

// The front's own refusals at /v1/responses and /v1/embeddings: a missing
// client key (401), a body over max_body_bytes (413), each in the OpenAI
// envelope with its code, before any upstream is called.
func TestOpenAIDoorsFrontRefusals(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("x", "x")), "anthropic": script(ok("x", "x"))})
	g := start(t, "client_keys: [client-key-1]\nmax_body_bytes: 2048\n"+responsesCfg, fs)
	for _, path := range []string{"/v1/responses", "/v1/embeddings"} {
		r := g.raw(t, http.MethodPost, path, `{"model":"agent","input":"hi"}`)
		r.wantStatus(t, http.StatusUnauthorized)
		if e, _ := r.json(t)["error"].(map[string]any); e["code"] != "invalid_api_key" {
			t.Errorf("%s 401: %s", path, r.Body)
		}
		big := `{"model":"agent","input":"` + strings.Repeat("x", 4096) + `"}`
		r = g.raw(t, http.MethodPost, path, big, "Authorization", "Bearer client-key-1")
		r.wantStatus(t, http.StatusRequestEntityTooLarge)
		if e, _ := r.json(t)["error"].(map[string]any); e["code"] != "request_too_large" {
			t.Errorf("%s 413: %s", path, r.Body)
		}
	}
	if fs["openai"].Calls()+fs["anthropic"].Calls() != 0 {
		t.Errorf("refused requests reached an upstream")
	}
}
