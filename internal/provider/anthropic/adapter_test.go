package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestNewRequestLoopback sends the translated request over real HTTP to a
// fake Messages endpoint and checks what arrives.
func TestNewRequestLoopback(t *testing.T) {
	f := adaptertest.ReadFixtures(t, "request")["tool_round_trip"]
	answer := adaptertest.ReadFixtures(t, "response")["tool_use"]
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			t.Errorf("got %s %s, want POST /v1/messages", r.Method, r.URL.Path)
		}
		if got := r.Header.Get("x-api-key"); got != "sk-ant-test" {
			t.Errorf("x-api-key = %q", got)
		}
		if got := r.Header.Get("anthropic-version"); got != "2023-06-01" {
			t.Errorf("anthropic-version = %q", got)
		}
		if got := r.Header.Get("Content-Type"); got != "application/json" {
			t.Errorf("content-type = %q", got)
		}
		if r.Header.Get("Authorization") != "" {
			t.Error("Authorization header must not be sent")
		}
		body, _ := io.ReadAll(r.Body)
		adaptertest.SameJSON(t, body, f.Want)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(answer.Upstream)
	}))
	defer srv.Close()

	ep := provider.Endpoint{BaseURL: srv.URL, APIKey: "sk-ant-test", Model: f.Model}
	hr, err := Adapter{}.NewRequest(context.Background(), ep, adaptertest.ClientRequest(t, f.In))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	got, err := Adapter{}.Response(body, ep)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, got, answer.Want)
}

func TestNewRequestStreamingAccept(t *testing.T) {
	req := adaptertest.ClientRequest(t, []byte(`{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: "http://x"}, req)
	if err != nil {
		t.Fatal(err)
	}
	if hr.Header.Get("Accept") != "text/event-stream" {
		t.Errorf("Accept = %q", hr.Header.Get("Accept"))
	}
	if _, ok := hr.Header["X-Api-Key"]; ok {
		t.Error("no key configured, but x-api-key sent")
	}
}

func TestTranslateRejects(t *testing.T) {
	for name, body := range map[string]string{
		"not json":       `{"messages":`,
		"bad role":       `{"messages":[{"role":"narrator","content":"x"}]}`,
		"bad part":       `{"messages":[{"role":"user","content":[{"type":"input_audio"}]}]}`,
		"bad choice":     `{"messages":[],"tool_choice":"sometimes"}`,
		"bad stop":       `{"messages":[],"stop":42}`,
		"content number": `{"messages":[{"role":"user","content":7}]}`,
	} {
		if _, err := Translate(&provider.Request{Body: []byte(body)}, "m"); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

func TestResponseRejectsErrorBodies(t *testing.T) {
	for _, body := range []string{
		// https://docs.anthropic.com/en/api/errors (error shape)
		`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`,
		`{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API."}}`,
		`{"error":{"message":"upstream proxy said no"}}`,
		`{}`,
		`[]`,
		`null`,
		``,
		`<html>502 Bad Gateway</html>`,
	} {
		if out, err := (Adapter{}).Response([]byte(body), testEP); err == nil {
			t.Errorf("%q: want an error, got %s", body, out)
		}
	}
}

func TestResponseFallsBackToEndpointModel(t *testing.T) {
	out, err := Adapter{}.Response([]byte(`{"type":"message","content":[],"stop_reason":"max_tokens"}`), testEP)
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		ID      string
		Model   string
		Choices []struct {
			FinishReason string `json:"finish_reason"`
			Message      struct{ Content *string }
		}
	}
	if err := json.Unmarshal(out, &c); err != nil {
		t.Fatal(err)
	}
	if c.Model != testEP.Model || !strings.HasPrefix(c.ID, "chatcmpl-") || c.Choices[0].FinishReason != "length" ||
		c.Choices[0].Message.Content == nil {
		t.Errorf("got %s", out)
	}
}

func TestStreamMalformedAndOddEvents(t *testing.T) {
	in := "event: content_block_delta\ndata: {not json\n\n" +
		"data: \n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":9,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":\"x\"}}\n\n" +
		"data: {\"type\":\"error\",\"error\":{\"type\":\"api_error\",\"message\":\"Internal server error\"}}\n\n"
	s := Adapter{}.Stream(strings.NewReader(in), testEP)
	got := adaptertest.Events(t, s)
	if len(got) != 4 || !got[0].Malformed || got[1].Content || got[2].Content || len(got[2].Chunks) != 0 || !got[3].Error {
		t.Fatalf("got %+v", got)
	}
	// The first chunk ever sent carries the role, even without message_start.
	s = Adapter{}.Stream(strings.NewReader("data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"Hi\"}}\n\n"), testEP)
	ev, _ := s.Next()
	if !ev.Content || len(ev.Chunks) != 1 || !bytes.Contains(ev.Chunks[0], []byte(`"role":"assistant","content":"Hi"`)) ||
		!bytes.Contains(ev.Chunks[0], []byte(`"model":"claude-sonnet-4-5"`)) {
		t.Fatalf("got %s", ev.Chunks)
	}
}

func FuzzStream(f *testing.F) {
	adaptertest.FuzzStream(f, testStream, "basic", "tool_use", "refusal", "error_before_content", "json_answer", "json_value")
}

func FuzzResponse(f *testing.F) {
	f.Add([]byte(`{"type":"message","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"t","name":"n","input":{}}]}`))
	f.Add([]byte(`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`))
	f.Add([]byte(`{"type":"message","content":[{"type":"tool_use","id":"t","name":"detour_json_value","input":{"value":[1]}}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Adapter{}.Response(in, testEP)
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
	})
}

func FuzzTranslate(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,AA=="}}]}]}`))
	f.Add([]byte(`{"messages":[{"role":"user","content":"x"}],"response_format":{"type":"json_schema","json_schema":{"name":"n","schema":{"type":"array"}}}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Translate(&provider.Request{Body: in}, "m")
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
	})
}

// A passthrough stream relays every content block delta as it came, so each
// is content (it commits), thinking and signatures included; the translated
// stream sends none of those, so they are not content there.
func TestNativeStreamEveryDeltaIsContent(t *testing.T) {
	in := "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":\"hmm\"}}\n\n" +
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"signature_delta\",\"signature\":\"c2ln\"}}\n\n" +
		"event: content_block_stop\ndata: {\"type\":\"content_block_stop\",\"index\":0}\n\n"
	got := adaptertest.Events(t, Adapter{}.NativeStream(provider.APIMessages, strings.NewReader(in), testEP))
	if len(got) != 3 || !got[0].Content || !got[1].Content || got[2].Content {
		t.Fatalf("native: %+v", got)
	}
	got = adaptertest.Events(t, Adapter{}.Stream(strings.NewReader(in), testEP))
	if len(got) != 3 || got[0].Content || got[1].Content {
		t.Fatalf("translated: %+v", got)
	}
}

// The one allow-list of client headers an Anthropic upstream gets as sent:
// anthropic-version and anthropic-beta, every value, never a credential;
// nil when the client sent none of them.
func TestForwardedHeader(t *testing.T) {
	h := http.Header{}
	h.Set("X-Api-Key", "client-key")
	h.Set("Authorization", "Bearer client-key")
	if got := ForwardedHeader(h); got != nil {
		t.Fatalf("forwarded %v from a request without anthropic headers", got)
	}
	h.Set("anthropic-version", "2023-06-01")
	h.Add("anthropic-beta", "a")
	h.Add("anthropic-beta", "b")
	got := ForwardedHeader(h)
	if len(got) != 2 || got.Get("Anthropic-Version") != "2023-06-01" || len(got.Values("Anthropic-Beta")) != 2 {
		t.Fatalf("forwarded %v", got)
	}
}
