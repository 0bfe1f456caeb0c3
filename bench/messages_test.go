package bench

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The /v1/messages door through the gateway (docs/benchmarks.md,
// "Anthropic Messages door"): passthrough to an Anthropic-dialect fake,
// and translation to an OpenAI-dialect fake, each against the same fake
// called directly.

const (
	messagesBody       = `{"model":"claude","max_tokens":256,"system":"You are terse.","messages":[{"role":"user","content":"Say hello in five words."}]}`
	messagesStreamBody = `{"model":"claude","max_tokens":256,"stream":true,"system":"You are terse.","messages":[{"role":"user","content":"Say hello in five words."}]}`
)

// anthropicAnswer is the Anthropic fake's fixed Message.
const anthropicAnswer = `{"id":"msg_bench","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":"Hello there, nice to meet."}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":12,"output_tokens":7}}`

// anthropicStream is an Anthropic stream of n text deltas (n+6 events).
func anthropicStream(n int) []string {
	ev := func(typ string, v map[string]any) string {
		v["type"] = typ
		b, _ := json.Marshal(v)
		return "event: " + typ + "\ndata: " + string(b)
	}
	out := []string{
		ev("message_start", map[string]any{"message": map[string]any{"id": "msg_bench", "type": "message", "role": "assistant",
			"model": "claude-sonnet-4-5", "content": []any{}, "stop_reason": nil, "usage": map[string]any{"input_tokens": 12, "output_tokens": 1}}}),
		ev("content_block_start", map[string]any{"index": 0, "content_block": map[string]any{"type": "text", "text": ""}}),
		ev("ping", map[string]any{}),
	}
	for _, p := range parts(n) {
		out = append(out, ev("content_block_delta", map[string]any{"index": 0, "delta": map[string]any{"type": "text_delta", "text": p}}))
	}
	return append(out, ev("content_block_stop", map[string]any{"index": 0}),
		ev("message_delta", map[string]any{"delta": map[string]any{"stop_reason": "end_turn", "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}}),
		ev("message_stop", map[string]any{}))
}

// messagesSetup starts a fake answering st and a gateway whose target
// "claude" is that fake, as dialect ("anthropic": passthrough; "openai":
// translated).
func messagesSetup(tb testing.TB, dialect string, st upstreamtest.Step) endpoints {
	f := fake(tb, st)
	yaml := `
providers:
  - {name: fake, dialect: ` + dialect + `, base_url: "` + f.URL + `", api_key: sk-bench}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [fake]}
`
	url, _ := gatewaytest.Start(tb, gatewaytest.Config(tb, yaml), app.Options{Decisions: decision.Discard})
	direct := f.URL + "/v1/messages"
	if dialect == "openai" {
		direct = f.URL + "/chat/completions"
	}
	return endpoints{direct: direct, gateway: url + "/v1/messages"}
}

func messageOK(b []byte) bool { return bytes.Contains(b, []byte(`"type":"message"`)) }
func messageEnded(b []byte) bool {
	return bytes.HasSuffix(b, []byte("data: {\"type\":\"message_stop\"}\n\n"))
}

// BenchmarkMessagesDirect: the Anthropic fake's Message, called directly.
func BenchmarkMessagesDirect(b *testing.B) {
	e := messagesSetup(b, "anthropic", upstreamtest.Step{Body: anthropicAnswer})
	run(b, client(1), e.direct, messagesBody, messageOK)
}

// BenchmarkMessagesPassthrough: the same through Detour's /v1/messages.
func BenchmarkMessagesPassthrough(b *testing.B) {
	e := messagesSetup(b, "anthropic", upstreamtest.Step{Body: anthropicAnswer})
	run(b, client(1), e.gateway, messagesBody, messageOK)
}

// BenchmarkMessagesTranslated: /v1/messages to an OpenAI-dialect target
// (request and answer translated); compare with BenchmarkDirect.
func BenchmarkMessagesTranslated(b *testing.B) {
	e := messagesSetup(b, "openai", upstreamtest.Step{Body: answer})
	run(b, client(1), e.gateway, messagesBody, messageOK)
}

// BenchmarkMessagesDirectStream: a 20-delta Anthropic stream (26 events),
// called directly.
func BenchmarkMessagesDirectStream(b *testing.B) {
	e := messagesSetup(b, "anthropic", upstreamtest.Step{Events: anthropicStream(20)})
	run(b, client(1), e.direct, messagesStreamBody, messageEnded)
}

// BenchmarkMessagesPassthroughStream: the same stream through Detour.
func BenchmarkMessagesPassthroughStream(b *testing.B) {
	e := messagesSetup(b, "anthropic", upstreamtest.Step{Events: anthropicStream(20)})
	run(b, client(1), e.gateway, messagesStreamBody, messageEnded)
}

// BenchmarkMessagesTranslatedStream: /v1/messages streamed from a 20-chunk
// OpenAI stream (24 events); compare with BenchmarkDirectStream.
func BenchmarkMessagesTranslatedStream(b *testing.B) {
	e := messagesSetup(b, "openai", upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)})
	run(b, client(1), e.gateway, messagesStreamBody, messageEnded)
}

// TestMessagesSetup checks that the benchmarks measure successful answers.
func TestMessagesSetup(t *testing.T) {
	c := client(1)
	for _, tc := range []struct {
		dialect string
		st      upstreamtest.Step
		body    string
		ok      func([]byte) bool
	}{
		{"anthropic", upstreamtest.Step{Body: anthropicAnswer}, messagesBody, messageOK},
		{"openai", upstreamtest.Step{Body: answer}, messagesBody, messageOK},
		{"anthropic", upstreamtest.Step{Events: anthropicStream(20)}, messagesStreamBody, messageEnded},
		{"openai", upstreamtest.Step{Events: upstreamtest.ChatStream(model, parts(20)...)}, messagesStreamBody, messageEnded},
	} {
		e := messagesSetup(t, tc.dialect, tc.st)
		got, err := post(c, e.gateway, tc.body)
		if err != nil || !tc.ok(got) || !bytes.Contains(got, []byte("nice to meet")) && !bytes.Contains(got, []byte("word19")) {
			t.Fatalf("%s: %v %.400s", tc.dialect, err, got)
		}
	}
}
