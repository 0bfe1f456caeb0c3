package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/responses"
)

// responsesServer serves one request with h and returns what the client read.
func responsesServer(t *testing.T, h func(o *responsesOutput)) (http.Header, string) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		h(newResponsesOutput(w, "dec-1", "route-a", responses.NewStream(nil, "route-a", 1)))
	}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.Header, string(b)
}

const textChunk = `{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}]}`

// Translated: Responses frames, no [DONE]; a failure after the commit point
// is response.failed with the class as code; nothing after the end.
func TestResponsesOutputTranslated(t *testing.T) {
	var late error
	h, body := responsesServer(t, func(o *responsesOutput) {
		if o.Chunk([]byte(textChunk)) == nil {
			t.Error("a chunk before the commit point was accepted")
		}
		o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1})
		o.Chunk([]byte(textChunk))
		o.Chunk([]byte(`not json`)) // skipped, not the client's failure
		o.Fail(&dispatch.Failure{Status: 429, Class: classify.RateLimited, Message: "slow down"})
		late = o.Chunk([]byte(textChunk))
	})
	if h.Get("Content-Type") != "text/event-stream" || h.Get("X-Detour-Target") != "t" {
		t.Errorf("headers: %v", h)
	}
	for _, want := range []string{"event: response.created\n", "event: response.output_text.delta\n",
		"event: response.failed\n", `"code":"rate_limit_exceeded"`, `"message":"slow down"`} {
		if !strings.Contains(body, want) {
			t.Errorf("body lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "[DONE]") || late == nil {
		t.Errorf("[DONE] written or a chunk after the end accepted (%v):\n%s", late, body)
	}
}

// Passthrough: each event framed with its own type, as it came; End adds
// nothing; a failure is a lone error event numbered after the last event
// relayed (OpenAI's error event has a sequence_number, and the Vercel AI
// SDK's parser refuses one without it).
func TestResponsesOutputNative(t *testing.T) {
	ev := `{"type":"response.output_text.delta","sequence_number":3,"delta":"hi"}`
	_, body := responsesServer(t, func(o *responsesOutput) {
		o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1, Native: true})
		o.Chunk([]byte(ev))
		o.End()
	})
	if want := "event: response.output_text.delta\ndata: " + ev + "\n\n"; body != want {
		t.Errorf("body %q, want %q", body, want)
	}
	_, body = responsesServer(t, func(o *responsesOutput) {
		o.Commit(dispatch.Commit{Native: true})
		o.Chunk([]byte(ev))
		o.Fail(&dispatch.Failure{Status: 502, Class: classify.ServerError, Message: "cut"})
	})
	if !strings.HasSuffix(body, "event: error\ndata: {\"type\":\"error\",\"sequence_number\":4,\"code\":\"server_error\",\"message\":\"cut\",\"param\":null,\"error\":{\"type\":\"server_error\",\"code\":\"server_error\",\"message\":\"cut\",\"param\":null}}\n\n") {
		t.Errorf("body: %q", body)
	}
	// Nothing relayed yet (or events without numbers): 0.
	_, body = responsesServer(t, func(o *responsesOutput) {
		o.Commit(dispatch.Commit{Native: true})
		o.Fail(&dispatch.Failure{Status: 502, Class: classify.ServerError, Message: "cut"})
	})
	if !strings.Contains(body, `{"type":"error","sequence_number":0,"code":"server_error"`) {
		t.Errorf("body: %q", body)
	}
}
