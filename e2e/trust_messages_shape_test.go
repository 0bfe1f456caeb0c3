package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A body that is JSON but not a Messages request — what Anthropic documents
// as required (model, max_tokens, messages, each message's role and
// content) missing or of the wrong type — is refused by Detour before any
// upstream call, even on a route whose first target is Anthropic and would
// get the body as sent: a client's mistake costs no upstream call and
// walks no route (docs/doors.md, "How the door is wired"). Members Detour
// does not know still pass through.
func TestMessagesMalformedNeverGoesUpstream(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "ok")}),
		"openai":    script(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-mini", "ok")}),
	})
	g := start(t, messagesCfg, fs)
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct{ name, body, field string }{
		{"no messages", `{"model":"deep","max_tokens":16}`, "messages"},
		{"messages null", `{"model":"deep","max_tokens":16,"messages":null}`, "messages"},
		{"messages a string", `{"model":"deep","max_tokens":16,"messages":"hi"}`, "messages"},
		{"messages an object", `{"model":"deep","max_tokens":16,"messages":{"role":"user","content":"hi"}}`, "messages"},
		{"messages empty", `{"model":"deep","max_tokens":16,"messages":[]}`, "messages"},
		{"a message not an object", `{"model":"deep","max_tokens":16,"messages":["hi"]}`, "messages.0"},
		{"no max_tokens", `{"model":"deep",` + msgs + `}`, "max_tokens"},
		{"max_tokens null", `{"model":"deep","max_tokens":null,` + msgs + `}`, "max_tokens"},
		{"max_tokens a string", `{"model":"deep","max_tokens":"16",` + msgs + `}`, "max_tokens"},
		{"max_tokens negative", `{"model":"deep","max_tokens":-1,` + msgs + `}`, "max_tokens"},
		{"max_tokens negative", `{"model":"deep","max_tokens":-5,` + msgs + `}`, "max_tokens"},
		{"max_tokens fractional", `{"model":"deep","max_tokens":2.5,` + msgs + `}`, "max_tokens"},
		{"an unknown role", `{"model":"deep","max_tokens":16,"messages":[{"role":"user","content":"hi"},{"role":"robot","content":"beep"}]}`, "messages.1.role"},
		{"no role", `{"model":"deep","max_tokens":16,"messages":[{"content":"hi"}]}`, "messages.0.role"},
		{"a role not a string", `{"model":"deep","max_tokens":16,"messages":[{"role":1,"content":"hi"}]}`, "messages.0.role"},
		{"no content", `{"model":"deep","max_tokens":16,"messages":[{"role":"user"}]}`, "messages.0.content"},
		{"content a number", `{"model":"deep","max_tokens":16,"messages":[{"role":"user","content":7}]}`, "messages.0.content"},
		// An unsupported member (translation aside) does not hide a malformed one.
		{"a document block and no max_tokens", `{"model":"deep","messages":[{"role":"user","content":[{"type":"document","source":{"type":"file","file_id":"file_1"}}]}]}`, "max_tokens"},
		{"mcp_servers and an unknown role", `{"model":"deep","max_tokens":16,"mcp_servers":[{"type":"url","url":"https://x","name":"x"}],"messages":[{"role":"robot","content":"hi"}]}`, "messages.0.role"},
		{"no model", `{"max_tokens":16,` + msgs + `}`, "model"},
		{"model a number", `{"model":7,"max_tokens":16,` + msgs + `}`, "model"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/messages", tc.body, "x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
			r.wantStatus(t, http.StatusBadRequest)
			var env struct {
				Type  string `json:"type"`
				Error struct{ Type, Message string }
			}
			if json.Unmarshal(r.Body, &env) != nil || env.Type != "error" || env.Error.Type != "invalid_request_error" {
				t.Fatalf("body %s, want Anthropic's envelope with invalid_request_error", r.Body)
			}
			if !strings.Contains(env.Error.Message, tc.field) {
				t.Errorf("message %q does not name %s", env.Error.Message, tc.field)
			}
		})
	}
	if n := fs["anthropic"].Calls() + fs["openai"].Calls(); n != 0 {
		t.Errorf("%d upstream calls for malformed requests, want 0", n)
	}
	// What Anthropic may add later still reaches it: an unknown member, an
	// unknown block type, a system message (Claude Code's), max_tokens
	// written as 1.6e1.
	body := `{"model":"deep","max_tokens":1.6e1,"future":{"x":1},"messages":[{"role":"user","content":[{"type":"future_block","x":1}]},` +
		`{"role":"system","content":"env"},{"role":"assistant","content":"ok"}]}`
	r := g.raw(t, http.MethodPost, "/v1/messages", body, "x-api-key", "client-key-1", "anthropic-version", "2023-06-01")
	r.wantStatus(t, 200)
	if got := fs["anthropic"].Requests(); len(got) != 1 || string(got[0].Body) != strings.Replace(body, `"deep"`, `"claude-sonnet-4-5"`, 1) {
		t.Errorf("the Anthropic target got %d requests, want the body as sent", len(got))
	}
}
