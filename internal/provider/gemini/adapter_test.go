package gemini

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestNewRequestLoopback sends translated requests over real HTTP to a fake
// Gemini endpoint and checks what arrives, for both methods.
func TestNewRequestLoopback(t *testing.T) {
	f := adaptertest.ReadFixtures(t, "request")["tool_round_trip"]
	answer := adaptertest.ReadFixtures(t, "response")["function_call_thinking"]
	stream, err := os.ReadFile("testdata/stream/basic.sse")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got := r.Header.Get("x-goog-api-key"); got != "AIza-test" {
			t.Errorf("x-goog-api-key = %q", got)
		}
		if r.URL.Query().Get("key") != "" || r.Header.Get("Authorization") != "" {
			t.Error("the key must travel only in x-goog-api-key")
		}
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("got %s with content-type %q", r.Method, r.Header.Get("Content-Type"))
		}
		body, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/v1beta/models/gemini-2.5-flash:generateContent":
			adaptertest.SameJSON(t, body, f.Want)
			w.Header().Set("Content-Type", "application/json")
			_, _ = w.Write(answer.Upstream)
		case "/v1beta/models/gemini-2.5-flash:streamGenerateContent":
			if r.URL.RawQuery != "alt=sse" {
				t.Errorf("query = %q, want alt=sse", r.URL.RawQuery)
			}
			w.Header().Set("Content-Type", "text/event-stream")
			_, _ = w.Write(stream)
		default:
			t.Errorf("unexpected path %q", r.URL.Path)
			w.WriteHeader(http.StatusNotFound)
		}
	}))
	defer srv.Close()
	ep := provider.Endpoint{BaseURL: srv.URL, APIKey: "AIza-test", Model: "models/gemini-2.5-flash", Signing: testEP.Signing}

	hr, err := Adapter{}.NewRequest(context.Background(), ep, adaptertest.ClientRequest(t, f.In))
	if err != nil {
		t.Fatal(err)
	}
	resp, err := srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	got, err := Adapter{}.Response(body, ep)
	if err != nil {
		t.Fatal(err)
	}
	adaptertest.SameJSON(t, got, answer.Want)

	sreq := adaptertest.ClientRequest(t, []byte(`{"model":"gemini","stream":true,"messages":[{"role":"user","content":"What is the capital of Wyoming?"}]}`))
	hr, err = Adapter{}.NewRequest(context.Background(), ep, sreq)
	if err != nil {
		t.Fatal(err)
	}
	resp, err = srv.Client().Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	want, _ := os.ReadFile("testdata/stream/basic.want.jsonl")
	if got := adaptertest.Record(t, Adapter{}.Stream(resp.Body, ep)); !bytes.Equal(got, want) {
		t.Errorf("stream over HTTP differs\n got: %s\nwant: %s", got, want)
	}
}

func TestTranslateRejects(t *testing.T) {
	for name, body := range map[string]string{
		"not json":        `{"messages":`,
		"bad role":        `{"messages":[{"role":"narrator","content":"x"}]}`,
		"unknown call id": `{"messages":[{"role":"tool","tool_call_id":"call_9","content":"x"}]}`,
		"bad part":        `{"messages":[{"role":"user","content":[{"type":"file"}]}]}`,
		"bad choice":      `{"messages":[],"tool_choice":{"type":"function"}}`,
	} {
		if _, err := Translate(&provider.Request{Body: []byte(body)}); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// TestResponseRejectsEmptyAndErrorBodies: a 200 without candidates, a
// block, or an error must never become an empty success.
func TestResponseRejectsEmptyAndErrorBodies(t *testing.T) {
	for name, body := range map[string]string{
		// https://github.com/FirebaseExtended/vertexai-sdk-test-data/blob/main/mock-responses/googleai/unary-failure-only-prompt-feedback.json
		"only prompt feedback": `{"candidates": [], "promptFeedback": {"blockReasonMessage": "Message"}, "modelVersion": "gemini-2.0-flash"}`,
		// https://github.com/FirebaseExtended/vertexai-sdk-test-data/blob/main/mock-responses/googleai/unary-success-basic-reply-no-candidates.json
		"no candidates": `{"candidates": [], "promptFeedback": {"blockReasonMessage": "Message"}, "usageMetadata": {"promptTokenCount": 7, "candidatesTokenCount": 22, "totalTokenCount": 29}, "modelVersion": "gemini-2.0-flash"}`,
		// classify/testdata/corpus/gemini-prompt-blocked-safety-200.json (source https://github.com/gbaptista/gemini-ai/pull/9)
		"prompt blocked": `{"promptFeedback":{"blockReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_DANGEROUS_CONTENT","probability":"HIGH"}]}}`,
		// classify/testdata/corpus/gemini-candidate-finish-safety-no-parts.json (source https://github.com/CherryHQ/cherry-studio/issues/664)
		"candidate blocked": `{"candidates":[{"finishReason":"SAFETY","safetyRatings":[{"category":"HARM_CATEGORY_SEXUALLY_EXPLICIT","probability":"HIGH","blocked":true}]}]}`,
		// https://ai.google.dev/api/rest/v1beta/Status shape, as Gemini sends errors
		"error":     `{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}`,
		"empty obj": `{}`,
		"array":     `[{"candidates":[]}]`,
		"html":      `<html>502</html>`,
		"empty":     ``,
	} {
		if out, err := (Adapter{}).Response([]byte(body), testEP); err == nil {
			t.Errorf("%s: want an error, got %s", name, out)
		}
	}
}

func TestResponseFallsBackToEndpointModel(t *testing.T) {
	out, err := Adapter{}.Response([]byte(`{"candidates":[{"content":{"parts":[{"text":"hi"}]},"finishReason":"MAX_TOKENS"}]}`), testEP)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`"model":"gemini-2.5-flash"`)) || !bytes.Contains(out, []byte(`"finish_reason":"length"`)) {
		t.Errorf("got %s", out)
	}
}

func TestStreamOddEvents(t *testing.T) {
	in := "data: {oops\n\n" +
		"data: {\"usageMetadata\":{\"promptTokenCount\":3,\"totalTokenCount\":3}}\n\n" +
		"data: {\"error\":{\"code\":503,\"message\":\"The model is overloaded. Please try again later.\",\"status\":\"UNAVAILABLE\"}}\n\n"
	s := Adapter{}.Stream(strings.NewReader(in), testEP)
	got := adaptertest.Events(t, s)
	if len(got) != 3 || !got[0].Malformed || got[1].Content || got[1].Usage == nil || got[1].Usage.TotalTokens != 3 || !got[2].Error {
		t.Fatalf("got %+v", got)
	}
}

// TestStreamTwoCandidates: with n>1 the stream is done only when every
// candidate has finished, and choices keep their indexes.
func TestStreamTwoCandidates(t *testing.T) {
	in := `data: {"candidates":[{"content":{"parts":[{"text":"A"}]},"index":0},{"content":{"parts":[{"text":"B"}]},"index":1}]}` + "\n\n" +
		`data: {"candidates":[{"content":{"parts":[{"text":"."}]},"finishReason":"STOP","index":0}]}` + "\n\n" +
		`data: {"candidates":[{"content":{"parts":[{"functionCall":{"name":"f","args":{"x":1}}}]},"finishReason":"STOP","index":1}]}` + "\n\n"
	s := Adapter{}.Stream(strings.NewReader(in), testEP)
	var done []bool
	var all []byte
	for {
		ev, err := s.Next()
		if err != nil {
			break
		}
		done = append(done, ev.Done)
		all = append(all, bytes.Join(ev.Chunks, []byte("\n"))...)
	}
	if len(done) != 3 || done[0] || done[1] || !done[2] {
		t.Fatalf("done = %v", done)
	}
	for _, want := range []string{`"index":1,"delta":{"content":"B"}`, `"finish_reason":"tool_calls"`,
		`{"index":0,"id":"call_0","type":"function","function":{"name":"f","arguments":"{\"x\":1}"}}`} {
		if !bytes.Contains(all, []byte(want)) {
			t.Errorf("missing %s in\n%s", want, all)
		}
	}
}

func FuzzStream(f *testing.F) {
	adaptertest.FuzzStream(f, testStream, "basic", "function_call_thinking", "prompt_blocked_after_content", "recitation_after_content")
}

func FuzzResponse(f *testing.F) {
	f.Add([]byte(`{"candidates":[{"content":{"parts":[{"text":"x"},{"functionCall":{"name":"n","args":{}}}]},"finishReason":"STOP"}]}`))
	f.Add([]byte(`{"promptFeedback":{"blockReason":"SAFETY"}}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Adapter{}.Response(in, testEP)
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
	})
}

func FuzzTranslate(f *testing.F) {
	f.Add([]byte(`{"messages":[{"role":"assistant","tool_calls":[{"id":"a","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"a","content":"[1]"}]}`))
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Translate(&provider.Request{Body: in})
		if err == nil && !json.Valid(out) {
			t.Fatalf("invalid output %q", out)
		}
	})
}

// A functionCall that carries Gemini's own id keeps it as the tool call id.
func TestFunctionCallIDIsKept(t *testing.T) {
	body := `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"id":"fc-7","name":"get_weather","args":{"city":"Paris"}}},{"functionCall":{"name":"get_time","args":{}}}]},"finishReason":"STOP"}]}`
	out, err := Adapter{}.Response([]byte(body), provider.Endpoint{Model: "gemini-2.5-flash"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"id":"fc-7"`) || !strings.Contains(string(out), `"id":"call_1"`) {
		t.Errorf("tool call ids: %s", out)
	}
}

// Two answers never share a tool call id, so a history that fails over to a
// vendor wanting unique ids (Anthropic) is still valid.
func TestToolCallIDsDifferAcrossAnswers(t *testing.T) {
	saved := newCallPrefix
	defer func() { newCallPrefix = saved }()
	newCallPrefix = defaultCallPrefix
	body := []byte(`{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"now","args":{}}}]},"finishReason":"STOP"}]}`)
	a, err1 := Adapter{}.Response(body, provider.Endpoint{Model: "m"})
	b, err2 := Adapter{}.Response(body, provider.Endpoint{Model: "m"})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	id := func(out []byte) string {
		var c struct {
			Choices []struct {
				Message struct {
					ToolCalls []struct{ ID string } `json:"tool_calls"`
				} `json:"message"`
			} `json:"choices"`
		}
		json.Unmarshal(out, &c)
		return c.Choices[0].Message.ToolCalls[0].ID
	}
	if ia, ib := id(a), id(b); ia == ib || !strings.HasPrefix(ia, "call_") {
		t.Errorf("tool call ids %q and %q", ia, ib)
	}
}

// TestThoughtsAreReasoningTokens: Gemini counts a thinking model's thoughts
// apart (usageMetadata.thoughtsTokenCount, billed as output); the canonical
// usage counts them in completion_tokens and says how many were reasoning
// (completion_tokens_details.reasoning_tokens), as OpenAI does, whole and
// streamed; an answer without thoughts says nothing of reasoning.
func TestThoughtsAreReasoningTokens(t *testing.T) {
	// The usageMetadata members of https://ai.google.dev/api/generate-content#UsageMetadata.
	const usage = `"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"thoughtsTokenCount":120,"totalTokenCount":131}`
	out, err := Adapter{}.Response([]byte(`{"candidates":[{"content":{"role":"model","parts":[{"text":"4"}]},"finishReason":"STOP","index":0}],`+usage+`}`), testEP)
	if err != nil {
		t.Fatal(err)
	}
	want := `"usage":{"prompt_tokens":10,"completion_tokens":121,"total_tokens":131,"completion_tokens_details":{"reasoning_tokens":120}}`
	if !bytes.Contains(out, []byte(want)) {
		t.Errorf("whole: got %s\nwant %s", out, want)
	}
	s := Adapter{}.Stream(strings.NewReader(`data: {"candidates":[{"content":{"role":"model","parts":[{"text":"4"}]},"finishReason":"STOP","index":0}],`+usage+"}\n\n"), testEP)
	evs := adaptertest.Events(t, s)
	var u *provider.Usage
	for _, ev := range evs {
		if ev.Usage != nil {
			u = ev.Usage
		}
	}
	if u == nil || u.CompletionTokens != 121 || u.CompletionTokensDetails == nil || u.CompletionTokensDetails.ReasoningTokens != 120 {
		t.Errorf("stream: usage %+v", u)
	}
	out, err = Adapter{}.Response([]byte(`{"candidates":[{"content":{"parts":[{"text":"4"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":10,"candidatesTokenCount":1,"totalTokenCount":11}}`), testEP)
	if err != nil || bytes.Contains(out, []byte("reasoning_tokens")) {
		t.Errorf("no thoughts: %s, %v", out, err)
	}
}
