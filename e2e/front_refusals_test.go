package e2e

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Requests the gateway refuses itself, before routing (a retired client
// key, a model name the file does not know, bad JSON, a body too large),
// reach no upstream and leave no decision record; they are counted by door
// and code in detour_front_refusals_total, so a client failing every
// request at the front shows on the operator's dashboards (operator review
// 48: nothing showed them). The client's own words never become a label.
func TestFrontRefusalsAreCounted(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(ok("gpt-4o-mini", "hi"))})
	g := start(t, `
max_body_bytes: 1024
client_keys:
  - {name: team, key: ck-front-refusals-abcdefgh}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: r, targets: [gpt]}
`, fs)
	key := []string{"Authorization", "Bearer ck-front-refusals-abcdefgh"}
	for _, c := range []struct {
		path, body string
		headers    []string
		status     int
	}{
		{"/v1/chat/completions", `{"model":"r","messages":[]}`, []string{"Authorization", "Bearer ck-retired"}, 401},
		{"/v1/chat/completions", `{"model":"gpt-zqxj-typo","messages":[{"role":"user","content":"hi"}]}`, key, 404},
		{"/v1/chat/completions", `{"model":`, key, 400},
		{"/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"` + strings.Repeat("x", 2048) + `"}]}`, key, 413},
		{"/v1/messages", `{"model":"nope","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, []string{"x-api-key", "ck-front-refusals-abcdefgh"}, 404},
	} {
		if r := g.raw(t, http.MethodPost, c.path, c.body, c.headers...); r.Status != c.status {
			t.Fatalf("%s %.40s: %d %s", c.path, c.body, r.Status, r.Body)
		}
	}
	m := string(g.raw(t, http.MethodGet, "/metrics", "").Body)
	for _, want := range []string{
		`detour_front_refusals_total{code="invalid_api_key",door="chat"} 1`,
		`detour_front_refusals_total{code="model_not_found",door="chat"} 1`,
		`detour_front_refusals_total{code="invalid_request",door="chat"} 1`,
		`detour_front_refusals_total{code="request_too_large",door="chat"} 1`,
		`detour_front_refusals_total{code="model_not_found",door="messages"} 1`,
	} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %s:\n%s", want, grepLines(m, "detour_front_refusals_total"))
		}
	}
	if strings.Contains(m, "zqxj") {
		t.Errorf("a client's words reached a label: %s", grepLines(m, "zqxj"))
	}
	if fs["openai"].Calls() != 0 {
		t.Errorf("the upstream was called %d times", fs["openai"].Calls())
	}
}
