package e2e

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 62b (hostile upstream): after the commit point, an upstream that
// sends deltas which carry nothing (an empty tool-call arguments delta, an
// empty text_delta relayed natively, an empty Responses output_text.delta)
// every 50 ms. idle_timeout (300 ms) is meant to catch a stalled answer
// (docs/config.md: "keep-alives and empty chunks do not restart it");
// with no max_stream_duration (the default) a stream re-armed by nothing
// never ended. Each stream now ends at idle_timeout.
func TestReview62bEmptyDeltasDoNotKeepAStalledStreamAlive(t *testing.T) {
	for _, tc := range []struct {
		name, dialect, extra, path, body, first, ping string
	}{
		{"openai chat: empty tool-call arguments", "openai", "", "/v1/chat/completions",
			`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"f\",\"arguments\":\"{\"}}]},\"finish_reason\":null}]}\n\n",
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n"},
		{"openai chat: tool call with index only", "openai", "", "/v1/chat/completions",
			`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0}]},\"finish_reason\":null}]}\n\n"},
		{"anthropic messages passthrough: empty text_delta", "anthropic", "", "/v1/messages",
			`{"model":"r","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"\"}}\n\n"},
		{"anthropic chat translated: empty thinking_delta", "anthropic", "", "/v1/chat/completions",
			`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"thinking\",\"thinking\":\"\"}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"\"}}\n\n"},
		{"gemini chat translated: empty text part", "gemini", "", "/v1/chat/completions",
			`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"Hel\"}]},\"index\":0}]}\n\n",
			"data: {\"candidates\":[{\"content\":{\"role\":\"model\",\"parts\":[{\"text\":\"\"}]},\"index\":0}]}\n\n"},
		{"responses passthrough: empty output_text.delta", "openai", ", responses: true", "/v1/responses",
			`{"model":"r","stream":true,"input":"hi"}`,
			"event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"in_progress\",\"output\":[]}}\n\n" +
				"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"Hel\"}\n\n",
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"item_id\":\"msg_1\",\"output_index\":0,\"content_index\":0,\"delta\":\"\"}\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := dripServer(t, tc.first, tc.ping)
			g := start(t, `
providers:
  - {name: p, dialect: `+tc.dialect+`, base_url: "`+up.URL+`", api_key: `+secret+`, idle_timeout: 300ms`+tc.extra+`}
targets:
  - {name: t, model: m, providers: [p]}
routes:
  - {name: r, targets: [t]}
`, map[string]*upstreamtest.Server{})
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+tc.path, strings.NewReader(tc.body))
			req.Header.Set("Content-Type", "application/json")
			if tc.dialect == "anthropic" && tc.path == "/v1/messages" {
				req.Header.Set("anthropic-version", "2023-06-01")
			}
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("after %v the client's stream had not ended (idle_timeout 300ms; the upstream sent nothing but empty deltas after its first content): %v\nclient got %d bytes: %.600s",
					time.Since(start).Round(time.Millisecond), err, len(b), b)
			}
			t.Logf("ended after %v: %.300s", time.Since(start).Round(time.Millisecond), b)
			// Ended by idle_timeout, not by anything else.
			d := g.recs.wait(t, 1)
			if n := len(d.Attempts); n == 0 || d.Attempts[n-1].Evidence != "timeout:idle" {
				t.Errorf("the stream ended otherwise than by idle_timeout: attempts %+v", d.Attempts)
			}
		})
	}
}

// Review 62b (hostile upstream): an upstream reached through a door that
// relays its answer natively (the Messages door at an Anthropic provider,
// the Responses door at a responses: true provider) quotes the key it was
// sent and its own address in a mid-stream error event, in a whole error
// answer, and in a 200 carrying an error. The chat door's error events
