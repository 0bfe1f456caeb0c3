package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openai/openai-go/v3/responses"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A provider with responses: true gets the client's /v1/responses body as
// sent (only "model" replaced) and its answer goes back as it came
// (docs/doors.md, "Passthrough"); other targets of the route still get the
// translation.

const responsesNativeCfg = `
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, responses: true}
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-5-mini, providers: [openai]}
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
routes:
  - {name: agent, targets: [gpt, claude]}
`

const nativeAnswer = `{"id":"resp_up","object":"response","created_at":1767225600,"status":"completed","model":"gpt-5-mini-2025-08-07","output":[{"id":"msg_up","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"native hello","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7},"error":null,"incomplete_details":null,"parallel_tool_calls":true,"tool_choice":"auto","tools":[],"text":{"format":{"type":"text"}},"metadata":{}}`

func nativeEvents() []string {
	item := `{"id":"msg_up","type":"message","status":"in_progress","role":"assistant","content":[]}`
	return []string{
		`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"gpt-5-mini","output":[]}}`,
		`event: response.output_item.added` + "\n" + `data: {"type":"response.output_item.added","sequence_number":1,"output_index":0,"item":` + item + `}`,
		`event: response.content_part.added` + "\n" + `data: {"type":"response.content_part.added","sequence_number":2,"item_id":"msg_up","output_index":0,"content_index":0,"part":{"type":"output_text","text":"","annotations":[]}}`,
		`event: response.output_text.delta` + "\n" + `data: {"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_up","output_index":0,"content_index":0,"delta":"native ","logprobs":[]}`,
		`event: response.output_text.delta` + "\n" + `data: {"type":"response.output_text.delta","sequence_number":4,"item_id":"msg_up","output_index":0,"content_index":0,"delta":"stream","logprobs":[]}`,
		`event: response.output_text.done` + "\n" + `data: {"type":"response.output_text.done","sequence_number":5,"item_id":"msg_up","output_index":0,"content_index":0,"text":"native stream","logprobs":[]}`,
		`event: response.content_part.done` + "\n" + `data: {"type":"response.content_part.done","sequence_number":6,"item_id":"msg_up","output_index":0,"content_index":0,"part":{"type":"output_text","text":"native stream","annotations":[]}}`,
		`event: response.output_item.done` + "\n" + `data: {"type":"response.output_item.done","sequence_number":7,"output_index":0,"item":{"id":"msg_up","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"native stream","annotations":[]}]}}`,
		`event: response.completed` + "\n" + `data: {"type":"response.completed","sequence_number":8,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"completed","model":"gpt-5-mini","output":[{"id":"msg_up","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"native stream","annotations":[]}]}],"usage":{"input_tokens":5,"output_tokens":2,"total_tokens":7}}}`,
	}
}

// Byte for byte: a body with members Detour's translation drops or refuses
// (a hosted tool, include, prompt_cache_key), odd spacing and escapes.
const clientResponsesBody = `{"input":[{"role":"developer","content":"be brief"},{"role":"user","content":"caf\u00e9?"}],  "model":"agent","tools":[{"type":"file_search","vector_store_ids":["vs_1"]}],"include":["reasoning.encrypted_content"],"prompt_cache_key":"k1","store":false,"stream":false}`

func TestResponsesPassthrough(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Body: nativeAnswer}),
		"anthropic": script(ok("x", "x")),
	})
	g := start(t, responsesNativeCfg, fs)
	r := g.raw(t, "POST", "/v1/responses", clientResponsesBody)
	r.wantStatus(t, 200)
	if string(r.Body) != nativeAnswer {
		t.Errorf("the client got %s, want the upstream's answer as it came", r.Body)
	}
	up := fs["openai"].Requests()[0]
	want := strings.Replace(clientResponsesBody, `"model":"agent"`, `"model":"gpt-5-mini"`, 1)
	if up.Path != "/responses" || string(up.Body) != want {
		t.Errorf("upstream got %s %s\nwant %s", up.Path, up.Body, want)
	}
	d := g.recs.wait(t, 1)
	if d.API != "responses" || d.Usage == nil || d.Usage.TotalTokens != 7 {
		t.Errorf("decision: api %q usage %+v", d.API, d.Usage)
	}
	// Streamed: the upstream's events are relayed as they came.
	fs["openai"].SetScript(script(upstreamtest.Step{Events: nativeEvents()}))
	s := sdk(g).Responses.NewStreaming(context.Background(), say("agent", "hi"))
	var acc responses.ResponseAccumulator
	n := 0
	for s.Next() {
		var sev responses.ResponsesServerEventUnion
		json.Unmarshal([]byte(s.Current().RawJSON()), &sev)
		if err := acc.AddEvent(sev); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	rr, err := acc.ReconstructedResponse()
	if err != nil || rr.OutputText() != "native stream" || n != len(nativeEvents()) {
		t.Errorf("stream: %d events, %v, %+v", n, err, rr)
	}
	if !bytes.Contains(fs["openai"].Requests()[1].Body, []byte(`"model":"gpt-5-mini"`)) {
		t.Errorf("upstream: %s", fs["openai"].Requests()[1].Body)
	}
}

// The responses: true target fails; the Anthropic target gets the
// translation (a request the translation can express).
func TestResponsesPassthroughFailsOverToTranslated(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(corpus(t, "openai-insufficient-quota-429")),
		"anthropic": script(upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")}),
	})
	g := start(t, responsesNativeCfg, fs)
	r, err := sdk(g).Responses.New(context.Background(), say("agent", "hi"))
	if err != nil {
		t.Fatal(err)
	}
	if r.OutputText() == "" || !strings.HasPrefix(r.Model, "claude") {
		t.Errorf("response: %s", r.RawJSON())
	}
	if fs["openai"].Requests()[0].Path != "/responses" || fs["anthropic"].Requests()[0].Path != "/v1/messages" {
		t.Errorf("paths: %s, %s", fs["openai"].Requests()[0].Path, fs["anthropic"].Requests()[0].Path)
	}
	wantSteps(t, g.recs.wait(t, 1), "gpt/openai quota next_target", "claude/anthropic ok done")
}

// Azure ends a content-filtered Responses stream with response.created, a
// response.failed whose error is null, and then an error event that
// carries the reason (the frames reported in maximhq/bifrost#6419; the
// message is Azure's content-filter sentence). The reason decides: a
// refusal, answered to the client and never replayed at the other vendor
// (docs/doors.md, "Passthrough").
func TestResponsesPassthroughReasonAfterBareFailed(t *testing.T) {
	events := []string{
		`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"gpt-5-mini","error":null,"output":[]}}`,
		`event: response.failed` + "\n" + `data: {"type":"response.failed","sequence_number":1,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"failed","model":"gpt-5-mini","error":null,"incomplete_details":null,"output":[]}}`,
		`event: error` + "\n" + `data: {"type":"error","sequence_number":2,"error":{"type":"invalid_request_error","code":"content_policy_violation","message":"The response was filtered due to the prompt triggering Azure OpenAI's content management policy. Please modify your prompt and retry.","param":null}}`,
	}
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    script(upstreamtest.Step{Events: events}),
		"anthropic": script(upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")}),
	})
	g := start(t, responsesNativeCfg, fs)
	r := g.raw(t, "POST", "/v1/responses", `{"model":"agent","input":"hi","stream":true}`)
	if c := r.Header.Get("X-Detour-Class"); c != "refusal" {
		t.Errorf("X-Detour-Class %q, want refusal: %d %s", c, r.Status, r.Body)
	}
	if !bytes.Contains(r.Body, []byte("content management policy")) {
		t.Errorf("the client did not get the upstream's reason: %s", r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gpt/openai refusal stop")
	if fs["anthropic"].Calls() != 0 {
		t.Error("a refusal was replayed at another vendor")
	}
}

// A Responses answer that stopped for content_filter with nothing in its
// output (incomplete_details.reason, OpenAI's API reference) is a refusal,
// whole or as the stream's response.incomplete: recorded as one, answered
// to the client, never replayed at the other vendor — not a success.
func TestResponsesPassthroughIncompleteContentFilter(t *testing.T) {
	whole := `{"id":"resp_up","object":"response","created_at":1767225600,"status":"incomplete","model":"gpt-5-mini","output":[],"incomplete_details":{"reason":"content_filter"},"error":null,"usage":{"input_tokens":12,"output_tokens":0,"total_tokens":12}}`
	events := []string{
		`event: response.created` + "\n" + `data: {"type":"response.created","sequence_number":0,"response":{"id":"resp_up","object":"response","created_at":1767225600,"status":"in_progress","model":"gpt-5-mini","output":[]}}`,
		`event: response.incomplete` + "\n" + `data: {"type":"response.incomplete","sequence_number":1,"response":` + whole + `}`,
	}
	for _, c := range []struct {
		name, body string
		step       upstreamtest.Step
	}{
		{"whole", `{"model":"agent","input":"hi"}`, upstreamtest.Step{Body: whole}},
		{"stream", `{"model":"agent","input":"hi","stream":true}`, upstreamtest.Step{Events: events}},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{
				"openai":    script(c.step),
				"anthropic": script(upstreamtest.Step{Body: upstreamOf(t, "anthropic", "response/hello.json")}),
			})
			g := start(t, responsesNativeCfg, fs)
			r := g.raw(t, "POST", "/v1/responses", c.body)
			if cl := r.Header.Get("X-Detour-Class"); cl != "refusal" {
				t.Errorf("X-Detour-Class %q, want refusal: %d %s", cl, r.Status, r.Body)
			}
			wantSteps(t, g.recs.wait(t, 1), "gpt/openai refusal stop")
			if fs["anthropic"].Calls() != 0 {
				t.Error("a refusal was replayed at another vendor")
			}
		})
	}
}
