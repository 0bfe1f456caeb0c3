package server_test

import (
	"net/http"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

// A stream from an Anthropic or a Gemini upstream costs its handler 8 KiB
// of stack too, at every door: the attempt's translation of the request
// into the upstream's dialect and the decoding of each upstream event
// (encoding/json, ~1.5 KiB deep past the ~4 KiB the relay stands on) run
// off the handler's stack (internal/offstack; docs/benchmarks.md, "Round
// 32"). Each grew every such stream's stack to 16 KiB before round 63; the
// guards above test an OpenAI upstream only. Skipped under -race.
func TestTranslatedStreamHandlerStackStays8KiB(t *testing.T) {
	if raceOn {
		t.Skip("the race detector doubles the stack guard: stacks grow sooner under it")
	}
	gemini := []string{
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"index":0}],"modelVersion":"gemini-2.5-flash"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_weather","args":{"city":{"name":"Paris","country":{"code":"FR"}}}}}]},"index":0}],"modelVersion":"gemini-2.5-flash"}`,
		`{"candidates":[{"content":{"role":"model","parts":[{"text":"!"}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":3,"totalTokenCount":6},"modelVersion":"gemini-2.5-flash"}`,
	}
	anthropic := []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":3,\"output_tokens\":1}}}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hello\"}}",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":1,\"content_block\":{\"type\":\"tool_use\",\"id\":\"toolu_1\",\"name\":\"get_weather\",\"input\":{}}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"{\\\"city\\\":\\\"Paris\\\"}\"}}",
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":1}",
		"event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"tool_use\"},\"usage\":{\"output_tokens\":9}}",
		"event: message_stop\ndata: {\"type\":\"message_stop\"}",
	}
	for _, up := range []struct {
		dialect, model string
		events         []string
	}{{"gemini", "gemini-2.5-flash", gemini}, {"anthropic", "claude-x", anthropic}} {
		srv, grew := stackServerAt(t, up.dialect, up.model, up.events)
		c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
		for _, door := range []struct{ path, body, last string }{
			{"/v1/chat/completions", `{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`, "data: [DONE]"},
			// An agent's turn: the attempt's translation decodes nested blocks.
			{"/v1/messages", messagesAgentTurn, `data: {"type":"message_stop"}`},
			{"/v1/responses", `{"model":"gpt","stream":true,"input":"hi"}`, `"type":"response.completed"`},
		} {
			// See TestStreamHandlerStackStays8KiB: no collection while a
			// request is measured, and the first request of a door fills
			// encoding/json's caches.
			runtime.GC()
			old := debug.SetGCPercent(-1)
			for i := range 3 {
				last, _ := streamed(t, c, srv.URL+door.path, door.body, "")
				if !strings.Contains(last, door.last) {
					t.Fatalf("%s upstream, %s stream %d ended with %q", up.dialect, door.path, i, last)
				}
				if g := <-grew; g && i > 0 {
					t.Errorf("%s upstream, %s stream %d: the handler's stack grew past 8 KiB", up.dialect, door.path, i)
				}
			}
			debug.SetGCPercent(old)
		}
	}
}
