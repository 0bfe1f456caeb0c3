package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile client, round 45b: oversized and odd requests on every door. The
// gateway must answer 4xx in its door's envelope (OpenAI's; Anthropic's on
// the Messages door), never a 5xx of its own, never crash, never the key.

type oddDoor45b struct {
	name, path string
	anthropic  bool
	headers    []string
	// body builds a request whose model is model and whose one user text
	// is text (raw JSON, quotes included); extra is spliced into the object.
	body func(model, text, extra string) string
}

var oddDoors45b = []oddDoor45b{
	{name: "chat", path: "/v1/chat/completions", body: func(m, x, e string) string {
		return `{"model":` + m + `,"messages":[{"role":"user","content":` + x + `}]` + e + `}`
	}},
	{name: "messages", path: "/v1/messages", anthropic: true, headers: []string{"anthropic-version", "2023-06-01"}, body: func(m, x, e string) string {
		return `{"model":` + m + `,"max_tokens":16,"messages":[{"role":"user","content":` + x + `}]` + e + `}`
	}},
	{name: "responses", path: "/v1/responses", body: func(m, x, e string) string {
		return `{"model":` + m + `,"input":` + x + e + `}`
	}},
	{name: "embeddings", path: "/v1/embeddings", body: func(m, x, e string) string {
		return `{"model":` + m + `,"input":` + x + e + `}`
	}},
}

// wantEnvelope45b fails unless r is a 4xx in the door's error envelope and
// carries no secret.
func wantEnvelope45b(t *testing.T, d oddDoor45b, r reply, what string, statuses ...int) {
	t.Helper()
	if bytes.Contains(r.Body, []byte(secret)) {
		t.Errorf("%s %s: the answer carries the provider key", d.name, what)
	}
	okStatus := false
	for _, s := range statuses {
		okStatus = okStatus || r.Status == s
	}
	if !okStatus {
		t.Errorf("%s %s: status %d, want one of %v: %.300s", d.name, what, r.Status, statuses, r.Body)
	}
	var env struct {
		Type  string `json:"type"`
		Error *struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.Body, &env); err != nil || env.Error == nil || env.Error.Message == "" {
		t.Errorf("%s %s: not an error envelope (%v): %.300s", d.name, what, err, r.Body)
		return
	}
	if d.anthropic && env.Type != "error" {
		t.Errorf("%s %s: not Anthropic's envelope (type %q): %.300s", d.name, what, env.Type, r.Body)
	}
	if !d.anthropic && env.Type != "" {
		t.Errorf("%s %s: an OpenAI door answered with a top-level type %q: %.300s", d.name, what, env.Type, r.Body)
	}
}

func startOdd45b(t *testing.T) (*gateway, map[string]*upstreamtest.Server) {
	t.Helper()
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"input"`) && !strings.Contains(string(r.Body), `"messages"`) {
				return upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1]}],"model":"model-a","usage":{"prompt_tokens":1,"total_tokens":1}}`}
			}
			return ok("model-a", "hi")
		},
	})
	g := start(t, `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r, targets: [a]}
`, fs)
	return g, fs
}

// TestHostile45bOddRequests: malformed and oversized requests on each door.
func TestHostile45bOddRequests(t *testing.T) {
	g, fs := startOdd45b(t)
	deep := strings.Repeat("[", 200000) + strings.Repeat("]", 200000)
	deepObj := strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000)
	for _, d := range oddDoors45b {
		text := `"hi"`
		if d.name == "responses" || d.name == "embeddings" {
			text = `"hi"`
		}
		cases := []struct {
			what     string
			body     string
			headers  []string
			statuses []int
		}{
			{"unknown model", d.body(`"nope"`, text, ""), nil, []int{404}},
			{"upstream model name, not a route or target", d.body(`"model-a"`, text, ""), nil, []int{404}},
			{"model with a NUL escape", d.body(`"r\u0000"`, text, ""), nil, []int{400, 404}},
			{"model a number", d.body(`7`, text, ""), nil, []int{400}},
			{"model an object", d.body(`{"name":"r"}`, text, ""), nil, []int{400}},
			{"raw NUL byte in a string", d.body(`"r"`, "\"h\x00i\"", ""), nil, []int{400}},
			{"invalid UTF-8 in a string", d.body(`"r"`, "\"h\xff\xfei\"", ""), nil, []int{200, 400}},
			{"deep array nesting", d.body(`"r"`, text, `,"x":`+deep), nil, []int{400, 413}},
			{"deep object nesting", d.body(`"r"`, text, `,"x":`+deepObj), nil, []int{400, 413}},
			{"trailing garbage", d.body(`"r"`, text, "") + `}{`, nil, []int{400}},
			{"not an object", `[` + d.body(`"r"`, text, "") + `]`, nil, []int{400}},
			{"empty body", ``, nil, []int{400}},
			{"null body", `null`, nil, []int{400}},
			{"huge header", d.body(`"r"`, text, ""), []string{"X-Big", strings.Repeat("a", 70<<10)}, []int{400, 413, 431}},
			{"huge header 300 KiB", d.body(`"r"`, text, ""), []string{"X-Big", strings.Repeat("a", 300<<10)}, []int{400, 413, 431}},
			{"huge header 2 MiB", d.body(`"r"`, text, ""), []string{"X-Big", strings.Repeat("a", 2<<20)}, []int{400, 413, 431}},
			{"many headers", d.body(`"r"`, text, ""), manyHeaders45b(5000), []int{400, 413, 431}},
			{"gzip encoded", d.body(`"r"`, text, ""), []string{"Content-Encoding", "gzip"}, []int{400, 415}},
		}
		for _, c := range cases {
			hs := append(append([]string(nil), d.headers...), c.headers...)
			r := g.raw(t, http.MethodPost, d.path, c.body, hs...)
			t.Logf("%s %s: %d %.120s", d.name, c.what, r.Status, r.Body)
			if strings.HasPrefix(c.what, "huge header") || c.what == "many headers" {
				t.Logf("%s %s: %d %.80q", d.name, c.what, r.Status, r.Body)
			}
			if (strings.HasPrefix(c.what, "huge header") || c.what == "many headers") && (r.Status == 431 || r.Status == 200) {
				// net/http answers 431 itself, in plain text, before any
				// handler: no envelope to ask of it. Just over
				// MaxHeaderBytes (64 KiB) is still read: net/http's slack.
				t.Logf("%s %s: %d %.80q", d.name, c.what, r.Status, r.Body)
				continue
			}
			if c.what == "invalid UTF-8 in a string" && r.Status == 200 {
				continue
			}
			wantEnvelope45b(t, d, r, c.what, c.statuses...)
		}
	}
	// The gateway is still up and serving.
	g.post(t, "r", "").wantStatus(t, 200)
	_ = fs
}

// TestHostile45bDuplicateModel: a body with two "model" members. Detour
// routes by the last (encoding/json) and replaces only the last
// (rawjson.MemberSpan); the first, the client's, is forwarded beside it. An
// upstream whose parser keeps the first duplicate serves the client's
// model, not the operator's.
func TestHostile45bDuplicateModel(t *testing.T) {
	for _, d := range oddDoors45b {
		if d.name == "messages" {
			continue // an OpenAI target: the Messages door is translated, not forwarded
		}
		t.Run(d.name, func(t *testing.T) {
			g, fs := startOdd45b(t)
			body := d.body(`"very-expensive-model"`, `"hi"`, `,"model":"r"`)
			r := g.raw(t, http.MethodPost, d.path, body, d.headers...)
			reqs := fs["p"].Requests()
			if len(reqs) == 0 {
				t.Logf("%s: not forwarded: %d %.200s", d.name, r.Status, r.Body)
				return
			}
			sent := string(reqs[0].Body)
			t.Logf("%s: %d; upstream got %.300s", d.name, r.Status, sent)
			if strings.Contains(sent, "very-expensive-model") {
				t.Errorf("%s: the upstream got the client's own model beside Detour's: %s", d.name, sent)
			}
		})
	}
}

func manyHeaders45b(n int) []string {
	var out []string
	for i := 0; i < n; i++ {
		out = append(out, "X-H"+itoa(i), strings.Repeat("b", 40))
	}
	return out
}
