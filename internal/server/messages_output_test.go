package server

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/dispatch"
)

// A native stream is relayed under each event's own type; one that ended
// without message_stop gets one.
func TestMessagesOutputNative(t *testing.T) {
	w := httptest.NewRecorder()
	o := newMessagesOutput(w, "id1", "deep")
	if err := o.Chunk([]byte(`{}`)); err == nil {
		t.Error("a chunk before the commit was accepted")
	}
	if err := o.Commit(dispatch.Commit{Target: "claude", Provider: "anthropic", Attempts: 1, Native: true}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{`{"type":"message_start","message":{}}`, `{ "index":0, "type":"content_block_delta"}`, `{"type":"a\nb"}`} {
		if err := o.Chunk([]byte(c)); err != nil {
			t.Fatal(err)
		}
	}
	if err := o.End(); err != nil {
		t.Fatal(err)
	}
	want := "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{}}\n\n" +
		"event: content_block_delta\ndata: { \"index\":0, \"type\":\"content_block_delta\"}\n\n" +
		"event: message\ndata: {\"type\":\"a\\nb\"}\n\n" +
		"event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n"
	if got := w.Body.String(); got != want {
		t.Errorf("wrote\n%q\nwant\n%q", got, want)
	}
	if w.Header().Get("X-Detour-Target") != "claude" || w.Header().Get("Content-Type") != "text/event-stream" {
		t.Errorf("headers %v", w.Header())
	}
}

// A translated stream goes through the encoder; a failure after the commit
// is Anthropic's error event with the class's type.
func TestMessagesOutputTranslatedFail(t *testing.T) {
	w := httptest.NewRecorder()
	o := newMessagesOutput(w, "id1", "cheap")
	o.inputTokens = 42
	if err := o.Commit(dispatch.Commit{Target: "gpt", Provider: "openai", Attempts: 2}); err != nil {
		t.Fatal(err)
	}
	if err := o.Chunk([]byte(`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"hi"}}]}`)); err != nil {
		t.Fatal(err)
	}
	if err := o.Fail(&dispatch.Failure{Status: 429, Class: classify.RateLimited, Message: "slow down"}); err != nil {
		t.Fatal(err)
	}
	got := w.Body.String()
	for _, want := range []string{`"input_tokens":42`, "event: content_block_delta", `"text":"hi"`,
		"event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"slow down\"}}\n\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("stream lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "message_stop") || o.End() == nil {
		t.Error("the stream went on after its failure")
	}
}

// readEvent reads the top-level "type" wherever it stands, never a nested
// one, and never a name unsafe on an SSE line.
func TestEventName(t *testing.T) {
	for in, want := range map[string]string{
		`{"type":"message_start","message":{"type":"message"}}`:                             "message_start",
		`{"delta":{"type":"text_delta","text":"x"},"index":0,"type":"content_block_delta"}`: "content_block_delta",
		`{"message":{"type":"message"}}`:                                                    "",
		`{"text":"\"type\":\"evil\"","type" : "ping"}`:                                      "ping",
		`{"type":"a\nb"}`:              "",
		`{"type":"a b"}`:               "",
		`{"type":1}`:                   "",
		`{"type":"message\u005fstop"}`: "", // escaped: not a plain name as written
	} {
		if got := string(readEvent([]byte(in)).name); got != want {
			t.Errorf("readEvent(%s).name = %q, want %q", in, got, want)
		}
	}
}
