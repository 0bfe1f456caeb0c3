package openai

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

func request(t *testing.T, body string) *provider.Request {
	t.Helper()
	var s struct{ Stream bool }
	if err := json.Unmarshal([]byte(body), &s); err != nil {
		t.Fatal(err)
	}
	return &provider.Request{Body: []byte(body), Stream: s.Stream}
}

// Everything but "model" reaches the upstream byte for byte.
func TestNewRequestPassesThroughAllButModel(t *testing.T) {
	var got []byte
	var hdr http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			t.Errorf("path %s", r.URL.Path)
		}
		got, _ = io.ReadAll(r.Body)
		hdr = r.Header
	}))
	defer srv.Close()
	body := `{"model":"deep","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{"x":{"type":"number"}}}}}],` +
		`"response_format":{"type":"json_object"},"logprobs":true,"top_logprobs":2,"x_vendor_extra":{"a":[1,2.50,"é"]}}`
	req := request(t, body)
	hr, err := Adapter{}.NewRequest(context.Background(), provider.Endpoint{BaseURL: srv.URL + "/v1", APIKey: "sk-test", Model: "gpt-4o"}, req)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(hr)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if hdr.Get("Authorization") != "Bearer sk-test" {
		t.Errorf("Authorization = %q", hdr.Get("Authorization"))
	}
	if want := strings.Replace(body, `"model":"deep"`, `"model":"gpt-4o"`, 1); string(got) != want {
		t.Errorf("upstream body:\n got %s\nwant %s", got, want)
	}
	var sent, orig map[string]json.RawMessage
	json.Unmarshal(got, &sent)
	json.Unmarshal([]byte(body), &orig)
	if string(sent["model"]) != `"gpt-4o"` {
		t.Errorf("model = %s", sent["model"])
	}
	for k, v := range orig {
		if k != "model" && string(sent[k]) != string(v) {
			t.Errorf("%s changed: %s → %s", k, v, sent[k])
		}
	}
	if len(sent) != len(orig) {
		t.Errorf("members: sent %d, client sent %d", len(sent), len(orig))
	}
}

func TestResponseRejectsWhatIsNotACompletion(t *testing.T) {
	// An empty choices array is no answer either: a client reads choices[0]
	// (review 33a).
	for _, body := range []string{`not json`, `{"id":"x"}`, `{"choices":null}`, `{"choices":{}}`,
		`{"choices":[]}`, `{"choices":[ ],"usage":{"total_tokens":7}}`, `{"Choices":[]}`} {
		if _, err := (Adapter{}).Response([]byte(body), provider.Endpoint{}); err == nil {
			t.Errorf("%s: accepted", body)
		}
	}
	ok := `{"id":"c","object":"chat.completion","model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`
	out, err := Adapter{}.Response([]byte(ok), provider.Endpoint{})
	if err != nil || string(out) != ok {
		t.Errorf("a completion is not passed through: %v", err)
	}
}

// ResponseUsage reads the answer's usage member in the same pass: the one
// rawjson.Member finds (the last of a repeated member, exact name), also on
// the slow path (a "Choices" only encoding/json's case-insensitive match
// accepts), and nil when there is none.
func TestResponseUsage(t *testing.T) {
	for _, c := range []struct{ body, usage string }{
		{`{"choices":[{}],"usage":{"total_tokens":7}}`, `{"total_tokens":7}`},
		{`{"usage":{"total_tokens":1},"choices":[{}],"usage":{"total_tokens":2}}`, `{"total_tokens":2}`},
		{`{"choices":[{}],"Usage":{"total_tokens":7}}`, ``},
		{`{"choices":[{}]}`, ``},
		{`{"Choices":[{}],"usage":{"total_tokens":3}}`, `{"total_tokens":3}`},
		{` {"choices" : [ {} ] , "usage" : null } `, `null`},
	} {
		out, usage, err := Adapter{}.ResponseUsage([]byte(c.body), provider.Endpoint{})
		if err != nil || string(out) != c.body || string(usage) != c.usage || (usage == nil) != (c.usage == "") {
			t.Errorf("%s: out %q usage %q err %v; want usage %q", c.body, out, usage, err, c.usage)
		}
	}
	for _, body := range []string{`{"choices":[]`, `{"choices":[],"usage":{"a":1,}}`, `{"choices":"[]"}`} {
		if _, _, err := (Adapter{}).ResponseUsage([]byte(body), provider.Endpoint{}); err == nil {
			t.Errorf("%s: accepted", body)
		}
	}
}

func TestStreamMarksContentErrorsAndDone(t *testing.T) {
	in := strings.Join([]string{
		`data: {"choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`,
		`: keep-alive`,
		`data: {"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}`,
		`data: {not json`,
		`data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":""}}]},"finish_reason":null}]}`,
		`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
		`data: {"error":{"message":"overloaded","type":"server_error"}}`,
		"event: error\ndata: {\"message\":\"boom\"}",
		`data: [DONE]`,
	}, "\n\n") + "\n\n"
	s := Adapter{}.Stream(strings.NewReader(in), provider.Endpoint{})
	type ev struct{ content, err, done, malformed, usage bool }
	var got []ev
	for {
		e, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev{e.Content, e.Error, e.Done, e.Malformed, e.Usage != nil})
	}
	want := []ev{{}, {content: true}, {malformed: true}, {content: true}, {usage: true}, {err: true}, {err: true}, {done: true}}
	if len(got) != len(want) {
		t.Fatalf("got %d events %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: %+v, want %+v", i, got[i], want[i])
		}
	}
}

// The answer is finished when every choice the stream opened has a
// finish_reason; a stream that ends before that was cut.
func TestStreamFinishedWhenEveryChoiceFinished(t *testing.T) {
	in := strings.Join([]string{
		`data: {"choices":[{"index":0,"delta":{"role":"assistant"}},{"index":1,"delta":{"role":"assistant"}}]}`,
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
		`data: {"choices":[{"index":1,"delta":{"content":"b"}}]}`,
		`data: {"choices":[{"index":1,"delta":{},"finish_reason":"length"}]}`,
		`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}`,
	}, "\n\n") + "\n\n"
	s := Adapter{}.Stream(strings.NewReader(in), provider.Endpoint{})
	var got []bool
	for {
		e, err := s.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Finished)
	}
	want := []bool{false, false, false, false, true, false}
	if len(got) != len(want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("event %d: finished %v, want %v", i, got[i], want[i])
		}
	}
}

// Reasoning (OpenRouter's "reasoning" and "reasoning_details"), audio and
// image deltas are content: they commit the stream rather than being held
// back behind the held-back cap.
func TestStreamContentKinds(t *testing.T) {
	for _, delta := range []string{
		`{"reasoning":"thinking"}`,
		`{"reasoning_details":[{"type":"reasoning.text","text":"x"}]}`,
		`{"audio":{"id":"a","data":"UklGRg=="}}`,
		`{"images":[{"type":"image_url","image_url":{"url":"data:image/png;base64,iVBO"}}]}`,
	} {
		s := Adapter{}.Stream(strings.NewReader(`data: {"choices":[{"index":0,"delta":`+delta+`}]}`+"\n\n"), provider.Endpoint{})
		if e, err := s.Next(); err != nil || !e.Content {
			t.Errorf("%s: content %v (err %v)", delta, e.Content, err)
		}
	}
	for _, delta := range []string{`{"role":"assistant"}`, `{"content":""}`, `{"tool_calls":[]}`, `{"audio":null}`, `{"images":[]}`} {
		s := Adapter{}.Stream(strings.NewReader(`data: {"choices":[{"index":0,"delta":`+delta+`}]}`+"\n\n"), provider.Endpoint{})
		if e, err := s.Next(); err != nil || e.Content {
			t.Errorf("%s: content %v (err %v)", delta, e.Content, err)
		}
	}
}
