package e2e

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// review 33a (hostile upstream): after the commit point, an upstream
// that stops answering but keeps its connection alive with events that
// carry nothing (Anthropic's ping, an empty OpenAI chunk) re-arms
// idle_timeout with every one of them: the answer never advances, the
// client's stream never ends (with no max_stream_duration, the default),
// and the request holds its client's max_concurrent slot, its body
// allowance and a goroutine for as long as the upstream likes.
// idle_timeout is there to catch a stalled answer; a keep-alive is not
// progress (comments already do not count: the SSE reader skips them).
func TestPingsDoNotKeepAStalledStreamAliveReview33a(t *testing.T) {
	for _, tc := range []struct {
		name, dialect, first, ping string
	}{
		{"anthropic ping", "anthropic",
			"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[],\"usage\":{\"input_tokens\":9,\"output_tokens\":1}}}\n\n" +
				"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}\n\n" +
				"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hel\"}}\n\n",
			"event: ping\ndata: {\"type\":\"ping\"}\n\n"},
		{"openai empty chunk", "openai",
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hel\"},\"finish_reason\":null}]}\n\n",
			"data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[]}\n\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := dripServer(t, tc.first, tc.ping)
			g := start(t, `
providers:
  - {name: p, dialect: `+tc.dialect+`, base_url: "`+up.URL+`", api_key: `+secret+`, idle_timeout: 300ms}
targets:
  - {name: t, model: m, providers: [p]}
routes:
  - {name: r, targets: [t]}
`, map[string]*upstreamtest.Server{})
			ctx, cancel := context.WithTimeout(context.Background(), 4*time.Second)
			defer cancel()
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
				strings.NewReader(`{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
			req.Header.Set("Content-Type", "application/json")
			start := time.Now()
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil {
				t.Fatalf("after %v the client's stream had not ended (idle_timeout 300ms; the upstream sent nothing but keep-alives after \"Hel\"): %v\nclient got: %s",
					time.Since(start).Round(time.Millisecond), err, b)
			}
			if !strings.Contains(string(b), "event: error") {
				t.Errorf("stream ended without an error event: %s", b)
			}
		})
	}
}

// dripServer is a stream upstream that sends first, then ping every 50 ms
// until the request ends: an answer hung after its first content.
func dripServer(t *testing.T, first, ping string) *httptest.Server {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first)
		w.(http.Flusher).Flush()
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-r.Context().Done():
				return
			case <-tick.C:
				if _, err := io.WriteString(w, ping); err != nil {
					return
				}
				w.(http.Flusher).Flush()
			}
		}
	}))
	t.Cleanup(up.Close)
	return up
}
