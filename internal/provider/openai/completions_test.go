package openai

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// A Completions request reaches {base_url}/completions with the client's
// body as sent but for "model", the provider's key in Authorization and
// nowhere else, and no header of the client's; only a provider that says
// completions: true serves the API.
func TestCompletionsRequestIsTheClientsBody(t *testing.T) {
	if (Adapter{}).Serves(provider.APICompletions) || (Adapter{Responses: true}).Serves(provider.APICompletions) ||
		!(Adapter{Completions: true}).Serves(provider.APICompletions) || (Adapter{Completions: true}).Serves(provider.APIResponses) {
		t.Fatal("Serves does not follow the provider's completions option alone")
	}
	type got struct {
		path, auth, accept, ctype string
		body                      []byte
		header                    http.Header
	}
	seen := make(chan got, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		seen <- got{r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Accept"), r.Header.Get("Content-Type"), b, r.Header.Clone()}
		io.WriteString(w, `{}`)
	}))
	defer srv.Close()
	const key = "sk-upstream-0123456789"
	body := `{"model":"route-name","prompt":["def f(","x"],"suffix":"\n  return x","max_tokens":16,"temperature":0,"stop":["\n\n"],"echo":false,"weird":{"kept":[1,2]}}`
	for _, stream := range []bool{false, true} {
		ep := provider.Endpoint{BaseURL: srv.URL + "/v1", Model: "Qwen/Qwen2.5-Coder-7B", APIKey: key}
		hr, err := Adapter{Completions: true}.NativeRequest(context.Background(), ep,
			&provider.NativeRequest{API: provider.APICompletions, Body: []byte(body), Stream: stream,
				Header: http.Header{"X-Client": {"nope"}}})
		if err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(hr)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		g := <-seen
		want := strings.Replace(body, `"route-name"`, `"Qwen/Qwen2.5-Coder-7B"`, 1)
		if g.path != "/v1/completions" || string(g.body) != want {
			t.Errorf("stream %v: %s %s, want /v1/completions %s", stream, g.path, g.body, want)
		}
		wantAccept := "application/json"
		if stream {
			wantAccept = "text/event-stream"
		}
		if g.auth != "Bearer "+key || g.ctype != "application/json" || g.accept != wantAccept {
			t.Errorf("stream %v: Authorization %q, Content-Type %q, Accept %q", stream, g.auth, g.ctype, g.accept)
		}
		for name, vs := range g.header {
			if name == "Authorization" {
				continue
			}
			if strings.Contains(strings.Join(vs, " "), key) || name == "X-Client" {
				t.Errorf("stream %v: header %s: %q (the key in Authorization only, no client header)", stream, name, vs)
			}
		}
		if strings.Contains(string(g.body), key) {
			t.Errorf("the key is in the body")
		}
	}
}

// A whole answer's usage is read as a chat answer's; an answer a client
// cannot read (no choices, not JSON) is unusable; one without usage has
// none.
func TestCompletionsAnswerUsage(t *testing.T) {
	a := Adapter{Completions: true}
	u, err := a.NativeAnswer(provider.APICompletions, []byte(`{"id":"cmpl-1","object":"text_completion","model":"m",
		"choices":[{"text":" world","index":0,"logprobs":null,"finish_reason":"length"}],
		"usage":{"prompt_tokens":12,"completion_tokens":3,"total_tokens":15}}`))
	if err != nil || u == nil || u.PromptTokens != 12 || u.CompletionTokens != 3 || u.TotalTokens != 15 {
		t.Fatalf("usage %+v, %v", u, err)
	}
	if u, err := a.NativeAnswer(provider.APICompletions, []byte(`{"choices":[{"text":"x","index":0,"finish_reason":"stop"}]}`)); err != nil || u != nil {
		t.Errorf("no usage: %+v, %v", u, err)
	}
	for _, bad := range []string{`{"choices":[]}`, `{"object":"text_completion"}`, `not json`, `{"choices":{}}`,
		// Review 65f: a chat completion is no answer a Completions client reads.
		`{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1}}`} {
		if _, err := a.NativeAnswer(provider.APICompletions, []byte(bad)); err == nil {
			t.Errorf("%s: read as an answer", bad)
		}
	}
}

// completionEvents reads a whole Completions stream as the walk does:
// each event's kind and flags, and whether its data goes out as it came.
func completionEvents(t *testing.T, stream string) []string {
	t.Helper()
	s := Adapter{Completions: true}.NativeStream(provider.APICompletions, strings.NewReader(stream), provider.Endpoint{})
	var got []string
	for {
		ev, err := s.Next()
		if errors.Is(err, io.EOF) {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		kind := "event"
		switch {
		case ev.Malformed:
			kind = "malformed"
		case ev.Error:
			kind = "error"
		case ev.Done:
			kind = "done"
		case ev.Content:
			kind = "content"
		}
		if ev.Finished {
			kind += " finished"
		}
		if ev.Usage != nil {
			kind += " usage"
		}
		if len(ev.Chunks) == 1 && string(ev.Chunks[0]) != string(ev.Raw) {
			kind += " (rewritten)"
		}
		got = append(got, kind)
	}
}

// A stream's content is a non-empty text; an empty text is none (it
// restarts no idle_timeout); a finish_reason finishes it, [DONE] ends it, a
// usage chunk is its usage, an error chunk or event is an error; every
// chunk goes as it came (a vendor's finish word too).
func TestCompletionsStreamEvents(t *testing.T) {
	text := func(s, finish string) string {
		return `{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"text":"` + s + `","index":0,"logprobs":null,"finish_reason":` + finish + `}]}`
	}
	for _, c := range []struct {
		name, stream string
		want         []string
	}{
		{"text, finish, usage, done", frames(text("", "null"), text("Hello", "null"), text("", "null"), text(" world", "null"), text("", `"stop"`),
			`{"id":"cmpl-1","object":"text_completion","choices":[],"usage":{"prompt_tokens":4,"completion_tokens":2,"total_tokens":6}}`, "[DONE]"),
			[]string{"event", "content", "event", "content", "content finished", "event usage", "done"}},
		// llama.cpp's server and vLLM put the finish on the last text.
		{"finish on the last text", frames(text("a", "null"), text("b", `"length"`), "[DONE]"),
			[]string{"content", "content finished", "done"}},
		{"a vendor's finish word goes as it came", frames(text("a", `"model_length"`)),
			[]string{"content finished"}},
		{"in-band error chunk", frames(text("a", "null"), `{"error":{"message":"overloaded","type":"server_error"}}`),
			[]string{"content", "error"}},
		{"error event", frames(text("a", "null")) + "event: error\ndata: {\"error\":{\"message\":\"boom\"}}\n\n",
			[]string{"content", "error"}},
		// A chat delta is no Completions content: the reader reads text.
		{"a chat delta is no text", frames(`{"choices":[{"index":0,"delta":{"content":""},"finish_reason":null}]}`, text("x", "null")),
			[]string{"malformed", "content"}},
		// Review 65f: a chunk of chat's shape — a delta, no text — is no
		// Completions chunk, whatever its delta says: malformed, dropped,
		// so a stream of them is no answer. A finish without text (no
		// delta) is still a finish.
		{"chat chunks are malformed", frames(`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":"chat"},"finish_reason":null}]}`,
			`{"id":"c","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`, `{"choices":[{"index":0,"finish_reason":"stop"}]}`, "[DONE]"),
			[]string{"malformed", "malformed", "content finished", "done"}},
		// The same through the decoder's path (a key scan leaves to it).
		{"decoded chunk", frames(`{"choices":[{"Index":0,"text":"hi","finish_reason":null}]}`, `{"choices":[{"Index":0,"text":"","finish_reason":null}]}`),
			[]string{"content", "event"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := completionEvents(t, c.stream); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n  %q\nwant\n  %q", got, c.want)
			}
		})
	}
}

// A chat stream's reader reads no "text": a chat chunk carrying one is not
// content there, as before the Completions door.
func TestChatStreamReadsNoText(t *testing.T) {
	s := Adapter{Completions: true}.Stream(strings.NewReader(frames(`{"choices":[{"index":0,"text":"x","delta":{},"finish_reason":null}]}`)), provider.Endpoint{})
	ev, err := s.Next()
	if err != nil || ev.Content || ev.Malformed {
		t.Fatalf("chat chunk with a text: content %v, malformed %v, %v", ev.Content, ev.Malformed, err)
	}
}
