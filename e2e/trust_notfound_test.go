package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A client that names something that does not exist — a file in a
// document block, a file part of a chat message — gets the upstream's 404,
// and nothing cools: the endpoint stays healthy and keeps serving
// (docs/behaviour.md, "Not found: whose?"; docs/security.md).

// missingFile answers 404 (the published answer, from the corpus) to a
// request naming fileID, and okBody to any other.
func missingFile(t *testing.T, corpusCase, fileID, okBody string) upstreamtest.Script {
	notFound := corpus(t, corpusCase)
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte(fileID)) {
			return notFound
		}
		return upstreamtest.Step{Body: okBody}
	}
}

// wantHealthy fails unless target/provider is healthy with no failures.
func wantHealthy(t *testing.T, g *gateway, target, provider string) {
	t.Helper()
	e, ok := g.health(t).Endpoint(target, provider)
	if !ok || e.State != "healthy" || e.Failures != 0 {
		t.Errorf("%s/%s after client-caused 404s: %+v (found %v), want healthy with no failures", target, provider, e, ok)
	}
}

// The Messages door's native passthrough: a document block naming a file
// the account does not have.
func TestMessagesClientNamedFileNotFoundNeverCools(t *testing.T) {
	const fileID = "file_011CNha8iCJcU1wXNR6q4V8w"
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": missingFile(t, "anthropic-file-not-found-404-files-api", fileID, anthropicMessage("claude-sonnet-4-5", "ok")),
		"openai":    script(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "spare")}),
	})
	g := start(t, messagesCfg, fs)
	bad := `{"model":"deep","max_tokens":64,"messages":[{"role":"user","content":[{"type":"text","text":"Please summarize this document for me."},` +
		`{"type":"document","source":{"type":"file","file_id":"` + fileID + `"}}]}]}`
	for range 4 { // more than failure_threshold, were it counted
		r := g.raw(t, http.MethodPost, "/v1/messages", bad, "x-api-key", "client-key-1",
			"anthropic-version", "2023-06-01", "anthropic-beta", "files-api-2025-04-14")
		r.wantStatus(t, http.StatusNotFound)
		var env struct {
			Type  string `json:"type"`
			Error struct{ Type, Message string }
		}
		if json.Unmarshal(r.Body, &env) != nil || env.Type != "error" || env.Error.Type != "invalid_request_error" ||
			env.Error.Message != "File not found: "+fileID {
			t.Fatalf("client got %s, want the upstream's 404 in Anthropic's envelope", r.Body)
		}
		if c := r.Header.Get("X-Detour-Class"); c != "bad_request" {
			t.Errorf("X-Detour-Class %q, want bad_request", c)
		}
	}
	if n := fs["openai"].Calls(); n != 0 {
		t.Errorf("a client's missing file walked the route: %d calls to the next target", n)
	}
	wantHealthy(t, g, "claude", "anthropic")
	r := g.raw(t, http.MethodPost, "/v1/messages", `{"model":"deep","max_tokens":64,"messages":[{"role":"user","content":"hi"}]}`,
		"x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
	r.wantStatus(t, 200)
	if got := r.Header.Get("X-Detour-Target"); got != "claude" || fs["openai"].Calls() != 0 {
		t.Errorf("the next request went to %q (%d openai calls), want the Anthropic target still first", got, fs["openai"].Calls())
	}
}

// The chat door: a file part naming a file the account does not have; the
// upstream's 404 quotes the client's own message content back.
func TestChatClientNamedFileNotFoundNeverCools(t *testing.T) {
	const fileID = "file-vyA4ivhKGPlD4hezlXpAtOGN"
	chatMissingFileNeverCools(t, fileID, corpus(t, "openai-no-such-file-object-404"))
}

// The same with an id in OpenAI's own shape (file- and base62) that holds
// no digit: found by the hostile review, it read unavailable and cooled the
// target for unavailable_cooldown.
func TestChatDigitFreeFileIDNeverCools(t *testing.T) {
	const fileID = "file-abcdefghijklmnopqrstuv"
	chatMissingFileNeverCools(t, fileID, upstreamtest.Step{Status: 404, Body: `{"error":{"message":"No such File object: ` + fileID + `"}}`})
}

// chatMissingFileNeverCools sends a chat request naming fileID, which the
// first target answers with notFound, four times between requests the
// endpoint serves: the client gets the 404 as bad_request each time, the
// route is not walked and the endpoint stays healthy.
func chatMissingFileNeverCools(t *testing.T, fileID string, notFound upstreamtest.Step) {
	t.Helper()
	cfg := `
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: ` + secret + `}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [oai]}
  - {name: spare, model: gpt-4o-mini, providers: [backup]}
routes:
  - {name: r, targets: [gpt, spare]}
`
	fs := fakes(t, map[string]upstreamtest.Script{
		"oai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if bytes.Contains(r.Body, []byte(fileID)) {
				return notFound
			}
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "ok")}
		},
		"backup": script(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "spare")}),
	})
	g := start(t, cfg, fs)
	for range 4 {
		g.post(t, "r", "").wantStatus(t, 200) // the endpoint serves
		r := g.raw(t, http.MethodPost, "/v1/chat/completions",
			`{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"What is in it?"},{"type":"file","file":{"file_id":"`+fileID+`"}}]}]}`,
		)
		r.wantStatus(t, http.StatusNotFound)
		if msg := r.errMessage(t); msg != "No such File object: "+fileID {
			t.Errorf("client got %q, want the upstream's message", msg)
		}
		if c := r.Header.Get("X-Detour-Class"); c != "bad_request" {
			t.Errorf("X-Detour-Class %q, want bad_request", c)
		}
	}
	if n := fs["backup"].Calls(); n != 0 {
		t.Errorf("a client's missing file walked the route: %d calls to the next target", n)
	}
	wantHealthy(t, g, "gpt", "oai")
}

// The Responses door's native passthrough: a code-interpreter container
// the account does not have.
func TestResponsesClientNamedContainerNotFoundNeverCools(t *testing.T) {
	const container = "cntr_686287a8b3ac8198ac1c81a5a0484c700c1db168eefb7434"
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai":    missingFile(t, "openai-container-file-not-found-404", container, nativeAnswer),
		"anthropic": script(ok("x", "x")),
	})
	responsesOwn404(t, start(t, responsesNativeCfg, fs), fs, "missing container",
		`{"model":"agent","input":"plot it","tools":[{"type":"code_interpreter","container":"`+container+`"}],"store":false}`)
}

// responsesOwn404 sends req, which names something of the client's own
// that the native Responses target answers 404 about, more often than the
// failure threshold: each is the client's bad_request, the next target is
// never called, the endpoint stays healthy and serves the next request.
func responsesOwn404(t *testing.T, g *gateway, fs map[string]*upstreamtest.Server, what, req string) {
	t.Helper()
	for range 4 { // more than failure_threshold, were it counted
		r := g.raw(t, http.MethodPost, "/v1/responses", req)
		r.wantStatus(t, http.StatusNotFound)
		if c := r.Header.Get("X-Detour-Class"); c != "bad_request" {
			t.Errorf("X-Detour-Class %q, want bad_request", c)
		}
	}
	if n := fs["anthropic"].Calls(); n != 0 {
		t.Errorf("a client's %s walked the route: %d calls to the next target", what, n)
	}
	wantHealthy(t, g, "gpt", "openai")
	r := g.raw(t, http.MethodPost, "/v1/responses", `{"model":"agent","input":"hi","store":false}`)
	r.wantStatus(t, 200)
	if string(r.Body) != nativeAnswer {
		t.Errorf("the next request got %s, want the native target's answer", r.Body)
	}
}
