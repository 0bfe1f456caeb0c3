package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Build 67f: every whole successful answer Detour writes carries
// X-Should-Retry: false, on every door, translated or passed through as
// sent. anthropic-sdk-go v2.17.0 and @anthropic-ai/sdk 1.17.0 send a
// non-streamed POST again when its answer's body drops part-way, even after
// a 2xx, unless the answer says x-should-retry: false; through Detour that
// is a second upstream call, billed and charged to the key again
// (e2e/resend67f_test.go drives the real SDK through a cut connection).
// A stream's answer is untouched: the SDKs never send a stream again.
func TestBuild67fEveryDoorsWholeAnswerSaysDoNotResend(t *testing.T) {
	an := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if strings.HasSuffix(r.Path, "count_tokens") {
			return upstreamtest.Step{Body: `{"input_tokens":3}`}
		}
		if r.Streamed() {
			return upstreamtest.Step{Events: []string{
				"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-x","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":3,"output_tokens":1}}}`,
				"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
				"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`,
				"event: content_block_stop\ndata: " + `{"type":"content_block_stop","index":0}`,
				"event: message_delta\ndata: " + `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":1}}`,
				"event: message_stop\ndata: " + `{"type":"message_stop"}`,
			}}
		}
		return upstreamtest.Step{Body: claudeJSON()}
	})
	p := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		switch {
		case strings.HasSuffix(r.Path, "/embeddings"):
			return upstreamtest.Step{Body: openAIVector}
		case strings.HasSuffix(r.Path, "/completions") && !strings.HasSuffix(r.Path, "/chat/completions"):
			return upstreamtest.Step{Body: `{"id":"cmpl-1","object":"text_completion","created":1,"model":"gpt-4o","choices":[{"text":"hi","index":0,"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`}
		case r.Streamed():
			return upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", "a", "b")}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "hi")}
	})
	n := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"from n","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`}
	})
	for _, s := range []*upstreamtest.Server{an, p, n} {
		t.Cleanup(s.Close)
	}
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "`+an.URL+`", api_key: sk-test}
  - {name: p, dialect: openai, base_url: "`+p.URL+`", api_key: sk-test, completions: true}
  - {name: n, dialect: openai, base_url: "`+n.URL+`", api_key: sk-test, responses: true}
targets:
  - {name: claude, model: claude-x, providers: [an]}
  - {name: gpt, model: gpt-4o, providers: [p]}
  - {name: nt, model: gpt-5, providers: [n]}
`), app.Options{Decisions: decision.Discard})

	chat := func(model string, stream bool) string {
		s := "false"
		if stream {
			s = "true"
		}
		return `{"model":"` + model + `","stream":` + s + `,"messages":[{"role":"user","content":"hi"}]}`
	}
	msgs := func(model string, stream bool) string {
		s := "false"
		if stream {
			s = "true"
		}
		return `{"model":"` + model + `","max_tokens":8,"stream":` + s + `,"messages":[{"role":"user","content":"hi"}]}`
	}
	for _, c := range []struct {
		name, path, body string
		want             string // X-Should-Retry
	}{
		{"chat, OpenAI target", "/v1/chat/completions", chat("gpt", false), "false"},
		{"chat, translated to Anthropic", "/v1/chat/completions", chat("claude", false), "false"},
		{"completions, passed through", "/v1/completions", `{"model":"gpt","prompt":"hi"}`, "false"},
		{"responses, translated to chat", "/v1/responses", `{"model":"gpt","input":"hi"}`, "false"},
		{"responses, passed through", "/v1/responses", `{"model":"nt","input":"hi"}`, "false"},
		{"embeddings", "/v1/embeddings", `{"model":"gpt","input":"hi"}`, "false"},
		{"messages, passed through to Anthropic", "/v1/messages", msgs("claude", false), "false"},
		{"messages, translated to OpenAI", "/v1/messages", msgs("gpt", false), "false"},
		{"count_tokens, Anthropic's exact count", "/v1/messages/count_tokens", `{"model":"claude","messages":[{"role":"user","content":"hi"}]}`, "false"},
		// Streams are untouched.
		{"chat stream", "/v1/chat/completions", chat("gpt", true), ""},
		{"messages stream", "/v1/messages", msgs("claude", true), ""},
	} {
		req, _ := http.NewRequest(http.MethodPost, url+c.path, strings.NewReader(c.body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("X-Api-Key", "k")
		req.Header.Set("Anthropic-Version", "2023-06-01")
		resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("%s: status %d, want 200: %.300s", c.name, resp.StatusCode, b)
			continue
		}
		if c.path != "/v1/messages/count_tokens" && resp.Header.Get("X-Detour-Decision") == "" {
			t.Errorf("%s: no X-Detour-Decision: not an upstream's answer", c.name)
		}
		if got := resp.Header.Values("X-Should-Retry"); strings.Join(got, ",") != c.want {
			t.Errorf("%s: X-Should-Retry %q, want %q", c.name, got, c.want)
		}
	}
}
