package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Whole answers a door cannot express as they are (docs/doors.md): tool
// calls whose arguments are not a JSON object through the Messages door to
// an OpenAI target, with the Anthropic Go SDK as the client, and a
// completion without choices through the Responses door. The client's
// answer and the decision record must agree.

const toolArgsCfg = `
client_keys: [client-key-1]
providers:
  - {name: first, dialect: openai, base_url: "{first}", api_key: ` + secret + `}
  - {name: second, dialect: openai, base_url: "{second}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [first]}
  - {name: gpt2, model: gpt-4.1, providers: [second]}
routes:
  - {name: pair, targets: [gpt, gpt2]}
`

// toolCallAnswer is an OpenAI answer calling write with args (a JSON string
// literal), ending with finish.
func toolCallAnswer(args, finish string) upstreamtest.Step {
	return upstreamtest.Step{Body: `{"id":"chatcmpl-w","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[{"index":0,` +
		`"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"write","arguments":` + args + `}}]},` +
		`"finish_reason":"` + finish + `"}],"usage":{"prompt_tokens":10,"completion_tokens":16,"total_tokens":26}}`}
}

func writeParams(model string) anthropic.MessageNewParams {
	p := askClaude(model, "write a.txt")
	p.MaxTokens = 16
	p.Tools = []anthropic.ToolUnionParam{anthropic.ToolUnionParamOfTool(anthropic.ToolInputSchemaParam{
		Properties: map[string]any{"path": map[string]any{"type": "string"}, "content": map[string]any{"type": "string"}}}, "write")}
	return p
}

// An answer cut at its length limit inside a tool call's arguments is a
// 200 Message with stop_reason max_tokens whose last block is the
// incomplete tool_use, holding the members whole before the cut, as
// Anthropic answers one; before, it was a 502 the SDK retried twice (three
// billed upstream calls) while the record said ok.
func TestMessagesToolCallCutAtLength(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"first":  script(toolCallAnswer(`"{\"path\":\"a.txt\",\"content\":\"hello wor"`, "length")),
		"second": script(upstreamtest.Step{Status: 500}),
	})
	g := start(t, toolArgsCfg, fs)
	c := anthropic.NewClient(option.WithBaseURL(g.URL+"/"), option.WithAPIKey("client-key-1")) // the SDK's default: 2 retries
	m, err := c.Messages.New(context.Background(), writeParams("gpt"))
	if err != nil {
		t.Fatalf("%v (upstream calls: %d)", err, fs["first"].Calls())
	}
	last := m.Content[len(m.Content)-1]
	if m.StopReason != "max_tokens" || last.Type != "tool_use" || last.Name != "write" || last.ID != "call_1" ||
		string(last.Input) != `{"path":"a.txt"}` {
		t.Errorf("answer: %s", m.RawJSON())
	}
	if n := fs["first"].Calls(); n != 1 {
		t.Errorf("%d upstream calls, want 1", n)
	}
	d := g.recs.wait(t, 1)
	if d.Outcome != "ok" || d.Status != 200 {
		t.Errorf("record: outcome %q status %d", d.Outcome, d.Status)
	}
	wantSteps(t, d, "gpt/first ok done")
}

// A tool call whose arguments are not a JSON object in an answer that was
// not cut is the model's own mistake, which no Anthropic client can read:
// the attempt fails as unknown (evidence answer:untranslatable, billable:
// it ran) and the route moves on. Where nothing else answers, the client's
// 502 and the record agree; before, the client got a 502 while the record
// said ok, and the route never moved on.
func TestMessagesBadToolArgumentsFailOver(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"first":  script(toolCallAnswer(`"{\"path\": a.txt}"`, "tool_calls")),
		"second": script(toolCallAnswer(`"{\"path\":\"a.txt\"}"`, "tool_calls")),
	})
	g := start(t, toolArgsCfg, fs)
	c := anthropicSDK(g, nil)
	m, err := c.Messages.New(context.Background(), writeParams("pair"))
	if err != nil {
		t.Fatal(err)
	}
	if m.StopReason != "tool_use" || len(m.Content) != 1 || string(m.Content[0].Input) != `{"path":"a.txt"}` {
		t.Errorf("answer: %s", m.RawJSON())
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gpt/first unknown next_target", "gpt2/second ok done")
	if a := d.Attempts[0]; a.Evidence != "answer:untranslatable" || !a.Billable || a.Counted || a.Message != "" {
		t.Errorf("first attempt: %+v", a)
	}

	var resp *http.Response
	_, err = c.Messages.New(context.Background(), writeParams("gpt"), option.WithResponseInto(&resp))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err = %v, want an *anthropic.Error", err)
	}
	d = g.recs.wait(t, 2)
	if apiErr.StatusCode != http.StatusBadGateway || d.Outcome != "error" || d.Status != apiErr.StatusCode || d.Class != "unknown" ||
		resp.Header.Get("X-Detour-Class") != "unknown" {
		t.Errorf("client got %d %s (class %q); record: outcome %q status %d class %q", apiErr.StatusCode, apiErr.RawJSON(),
			resp.Header.Get("X-Detour-Class"), d.Outcome, d.Status, d.Class)
	}
	wantSteps(t, d, "gpt/first unknown stop")
}

// The same at /v1/responses: a whole answer without a choice fails its
// attempt and the route moves on; before, the client got a 502 while the
// record said ok. Since review 33a the adapter refuses it for every door,
// as an answer it cannot read (server_error, decode: retried once first).
func TestResponsesNoChoicesFailsOver(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"first":  script(upstreamtest.Step{Body: `{"id":"x","object":"chat.completion","created":1,"model":"gpt-4o-mini","choices":[]}`}),
		"second": script(ok("gpt-4.1", "hello")),
	})
	g := start(t, toolArgsCfg, fs)
	r := g.raw(t, "POST", "/v1/responses", `{"model":"pair","input":"hi"}`, "Authorization", "Bearer client-key-1")
	if r.Status != 200 || !strings.Contains(string(r.Body), `"text":"hello"`) {
		t.Errorf("%d %s", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "gpt/first server_error retry", "gpt/first server_error next_target", "gpt2/second ok done")
}
