package server_test

import (
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
)

// Review 37c. Anthropic streams an overload as a 200 whose events end in
// `event: error` with overloaded_error; clients (Claude Code among them)
// recognise an overload by that type, or by the status 529. Detour told them
// 502 api_error, before the commit and after it, even on a native stream.
func TestInStreamOverloadIsToldAsAnOverload(t *testing.T) {
	ev := func(typ, data string) string { return "event: " + typ + "\ndata: " + data + "\n\n" }
	start := ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-x","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`) +
		ev("ping", `{"type":"ping"}`)
	overloaded := ev("error", `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`)
	text := ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hel"}}`)
	var early atomic.Bool
	early.Store(true)
	url, _ := r37bGateway(t, `
providers:
  - {name: p, dialect: anthropic, base_url: "{a}", api_key: sk-ant-test}
targets:
  - {name: c, model: claude-x, providers: [p]}
routes:
  - {name: r, targets: [c], max_attempts: 1}
`, func(w http.ResponseWriter, r *http.Request) {
		if early.Load() {
			r37bSSE(w, start+overloaded)
			return
		}
		r37bSSE(w, start+text+overloaded)
	})
	messages := `{"model":"r","max_tokens":10,"stream":true,"messages":[{"role":"user","content":"hi"}]}`
	chat := `{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`

	// Before the commit point: the status and the type say overloaded.
	resp, body := postWith(t, url, "/v1/messages", messages)
	if resp.StatusCode != 529 || !strings.Contains(body, `"type":"overloaded_error"`) {
		t.Errorf("/v1/messages, overload before content: %d %s; want 529 overloaded_error", resp.StatusCode, body)
	}
	if resp, body := postWith(t, url, "/v1/chat/completions", chat); resp.StatusCode != 529 {
		t.Errorf("/v1/chat/completions, overload before content: %d %s; want 529", resp.StatusCode, body)
	}
	// After it: the error event's type says overloaded.
	early.Store(false)
	resp, body = postWith(t, url, "/v1/messages", messages)
	if resp.StatusCode != 200 || !strings.Contains(body, "event: error") || !strings.Contains(body, `"type":"overloaded_error"`) {
		t.Errorf("/v1/messages, overload after content: %d %s; want an overloaded_error event", resp.StatusCode, tail(body, 400))
	}
}
