package e2e

import (
	"encoding/json"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review 33a (hostile upstream): OpenAI-compatible servers that stream
// parallel tool calls all at tool_calls index 0, each call with its own id
// (Ollama 0.20, ollama/ollama#15457; SGLang; Dynamo; LiteLLM's Responses
// bridge). The doors that translate such a stream (/v1/messages,
// /v1/responses) key calls on the index alone, so two distinct calls become
// ONE tool_use / function_call whose arguments are the two JSON objects
// concatenated: the client's tool input does not parse and the second call
// (its id, its name) is lost.
const toolIndexCfg = `
providers:
  - {name: o, dialect: openai, base_url: "{o}", api_key: ` + secret + `}
targets:
  - {name: t, model: qwen3, providers: [o]}
routes:
  - {name: r, targets: [t]}
`

func ollamaParallelCalls() upstreamtest.Step {
	c := func(choice string) string {
		return `{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"qwen3","choices":[` + choice + `]}`
	}
	return upstreamtest.Step{Events: []string{
		c(`{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}`),
		c(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"get_weather","arguments":"{\"city\":\"Paris\"}"}}]},"finish_reason":null}`),
		c(`{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_b","type":"function","function":{"name":"get_time","arguments":"{\"tz\":\"Europe/Rome\"}"}}]},"finish_reason":null}`),
		c(`{"index":0,"delta":{},"finish_reason":"tool_calls"}`),
		"[DONE]",
	}}
}

func TestParallelCallsAtOneIndexStayApartMessagesReview33a(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"o": script(ollamaParallelCalls())})
	g := start(t, toolIndexCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"r","max_tokens":100,"stream":true,"messages":[{"role":"user","content":"weather in Paris, time in Rome"}],`+
		`"tools":[{"name":"get_weather","input_schema":{"type":"object"}},{"name":"get_time","input_schema":{"type":"object"}}]}`,
		"anthropic-version", "2023-06-01")
	r.wantStatus(t, 200)
	type block struct {
		name, id, input string
	}
	blocks := map[int]*block{}
	var order []int
	for _, ev := range r.events() {
		var e struct {
			Index        int `json:"index"`
			ContentBlock struct {
				Type, ID, Name string
			} `json:"content_block"`
			Delta struct {
				Type        string `json:"type"`
				PartialJSON string `json:"partial_json"`
			} `json:"delta"`
		}
		_ = json.Unmarshal([]byte(ev.Data), &e)
		switch ev.Name {
		case "content_block_start":
			if e.ContentBlock.Type == "tool_use" {
				blocks[e.Index] = &block{name: e.ContentBlock.Name, id: e.ContentBlock.ID}
				order = append(order, e.Index)
			}
		case "content_block_delta":
			if b := blocks[e.Index]; b != nil && e.Delta.Type == "input_json_delta" {
				b.input += e.Delta.PartialJSON
			}
		}
	}
	if len(order) != 2 {
		t.Errorf("%d tool_use blocks, want 2 (get_weather, get_time)", len(order))
	}
	for _, i := range order {
		b := blocks[i]
		if !json.Valid([]byte(b.input)) {
			t.Errorf("tool_use %s (%s): input %q is not JSON: the client cannot run it", b.name, b.id, b.input)
		}
	}
	if t.Failed() {
		t.Logf("client stream:\n%s", r.Body)
	}
}

func TestParallelCallsAtOneIndexStayApartResponsesReview33a(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"o": script(ollamaParallelCalls())})
	g := start(t, toolIndexCfg, fs)
	r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"r","stream":true,"input":"weather in Paris, time in Rome",`+
		`"tools":[{"type":"function","name":"get_weather","parameters":{"type":"object"}},{"type":"function","name":"get_time","parameters":{"type":"object"}}]}`)
	r.wantStatus(t, 200)
	var calls []map[string]any
	for _, ev := range r.events() {
		if ev.Name != "response.output_item.done" {
			continue
		}
		var e struct {
			Item map[string]any `json:"item"`
		}
		_ = json.Unmarshal([]byte(ev.Data), &e)
		if e.Item["type"] == "function_call" {
			calls = append(calls, e.Item)
		}
	}
	if len(calls) != 2 {
		t.Errorf("%d function_call items, want 2 (get_weather, get_time)", len(calls))
	}
	for _, c := range calls {
		args, _ := c["arguments"].(string)
		if !json.Valid([]byte(args)) {
			t.Errorf("function_call %v (%v): arguments %q are not JSON: the client cannot run it", c["name"], c["call_id"], args)
		}
	}
	if t.Failed() {
		t.Logf("client stream:\n%s", r.Body)
	}
}
