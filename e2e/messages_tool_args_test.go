package e2e

import (
	"context"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Tool calls whose arguments are not a JSON object, through the Messages
// door to an OpenAI target, whole (docs/doors.md, "Anthropic Messages",
// "Answers"): the Anthropic Go SDK as the client, with its default retries.

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
