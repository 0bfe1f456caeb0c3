package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The HTTP front under hostile input (docs/security.md, "Hostile clients at
// the HTTP front"): every refusal is the gateway's own, in the OpenAI
// envelope, and reaches no upstream.

const frontCfg = `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
`

// wantEnvelope checks r is the gateway's own error: status, the OpenAI
// envelope, and a message containing msg.
func wantEnvelope(t *testing.T, r reply, status int, msg string) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status %d, want %d: %s", r.Status, status, r.Body)
	}
	e, _ := r.json(t)["error"].(map[string]any)
	if e == nil || e["type"] == nil || e["code"] == nil {
		t.Fatalf("not an OpenAI envelope: %s", r.Body)
	}
	if m := r.errMessage(t); !strings.Contains(m, msg) {
		t.Errorf("message %q lacks %q", m, msg)
	}
}

// One reading of the request: a body the gateway and an upstream could read
// differently (a repeated member, a member spelled like one the gateway
// reads but for case) is refused before any upstream is called.
func TestAmbiguousBodiesAreRefused(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, frontCfg, fs)
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct{ name, body, msg string }{
		{"stream twice by case", `{"model":"a",` + msgs + `,"stream":true,"STREAM":false}`, `"STREAM"`},
		{"stream alone by case", `{"model":"a",` + msgs + `,"Stream":true}`, `"Stream"`},
		{"stream twice", `{"model":"a",` + msgs + `,"stream":false,"stream":true}`, `"stream"`},
		{"stream twice through an escape", `{"model":"a",` + msgs + `,"stre\u0061m":true,"stream":false}`, `"stream"`},
		{"stream by Unicode case folding", `{"model":"a",` + msgs + `,"stream":false,"ſtream":true}`, `"ſtream"`},
		{"model twice", `{"model":"a",` + msgs + `,"model":"b"}`, `"model"`},
		{"model by case", `{"model":"a",` + msgs + `,"MODEL":"b"}`, `"MODEL"`},
		{"messages by case", `{"model":"a",` + msgs + `,"Messages":[]}`, `"Messages"`},
		{"a translated member by case", `{"model":"a",` + msgs + `,"max_tokens":5,"MAX_TOKENS":5000}`, `"MAX_TOKENS"`},
		{"a member twice inside a message", `{"model":"a","messages":[{"role":"user","content":"hi","content":"bye"}]}`, `"content"`},
		{"a member twice deep in an array", `{"model":"a",` + msgs + `,"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","properties":{},"type":"array"}}}]}`, `"type"`},
		{"an unknown member twice", `{"model":"a",` + msgs + `,"x_extra":1,"x_extra":2}`, `"x_extra"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", tc.body)
			wantEnvelope(t, r, 400, tc.msg)
		})
	}
	if n := fs["p"].Calls(); n != 0 {
		t.Errorf("the upstream was called %d times for refused bodies", n)
	}
	// What stays allowed: the same name in different objects, and names
	// the gateway does not read differing only by case.
	for _, body := range []string{
		`{"model":"a","messages":[{"role":"user","content":"a"},{"role":"user","content":"b"}],"metadata":{"model":"x","messages":1}}`,
		`{"model":"a",` + msgs + `,"x_vendor":1,"X_VENDOR":2}`,
	} {
		g.raw(t, http.MethodPost, "/v1/chat/completions", body).wantStatus(t, 200)
	}
	if n := fs["p"].Calls(); n != 2 {
		t.Errorf("the upstream was called %d times, want 2", n)
	}
}

// The members the gateway reads must have the right kind.
func TestMembersOfTheWrongKindAreRefused(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	g := start(t, frontCfg, fs)
	const msgs = `"messages":[{"role":"user","content":"hi"}]`
	for _, tc := range []struct{ name, body, msg string }{
		{"messages null", `{"model":"a","messages":null}`, `"messages"`},
		{"messages a string", `{"model":"a","messages":"hi"}`, `"messages"`},
		{"messages an object", `{"model":"a","messages":{"role":"user"}}`, `"messages"`},
		{"messages missing", `{"model":"a"}`, `"messages"`},
		{"model a number", `{"model":5,` + msgs + `}`, `"model"`},
		{"model null", `{"model":null,` + msgs + `}`, `"model"`},
		{"model a list", `{"model":["a"],` + msgs + `}`, `"model"`},
		{"model empty", `{"model":"",` + msgs + `}`, `"model"`},
		{"stream a string", `{"model":"a",` + msgs + `,"stream":"yes"}`, `"stream"`},
		{"body a list", `[{"model":"a"}]`, "JSON object"},
		{"body null", `null`, "JSON object"},
		{"trailing bytes", `{"model":"a",` + msgs + `} {}`, "invalid JSON"},
		{"truncated", `{"model":"a",` + msgs, "invalid JSON"},
		{"bad number", `{"model":"a",` + msgs + `,"temperature":01}`, "invalid JSON"},
		{"control character in a string", "{\"model\":\"a\",\"messages\":[{\"role\":\"user\",\"content\":\"a\x01b\"}]}", "invalid JSON"},
		{"bad escape", `{"model":"a","messages":[{"role":"user","content":"\x"}]}`, "invalid JSON"},
		{"too deep", `{"model":"a",` + msgs + `,"x":` + strings.Repeat("[", 20000) + strings.Repeat("]", 20000) + `}`, "invalid JSON"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			wantEnvelope(t, g.raw(t, http.MethodPost, "/v1/chat/completions", tc.body), 400, tc.msg)
		})
	}
	if n := fs["p"].Calls(); n != 0 {
		t.Errorf("the upstream was called %d times for refused bodies", n)
	}
	g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"a",`+msgs+`,"stream":null}`).wantStatus(t, 200)
}
