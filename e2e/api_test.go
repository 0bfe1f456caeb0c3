package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// docs/behaviour.md#api: the HTTP API, the gateway's own errors, and what it must never
// show or change.

const apiCfg = `
max_body_bytes: 2048
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
  - {name: q, dialect: openai, base_url: "{q}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, strategy: fastest, targets: [a, b]}
`

func TestGatewayErrorsUseTheOpenAIEnvelope(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b"))})
	g := start(t, apiCfg, fs)
	for _, tc := range []struct {
		name, method, body string
		status             int
		msg                string
	}{
		{"bad JSON", "POST", `{"model":`, 400, "invalid JSON"},
		{"missing model", "POST", `{"messages":[]}`, 400, `"model"`},
		{"unknown model names the known ones", "POST", `{"model":"nope","messages":[]}`, 404, "known: a, b, r"},
		{"oversized body", "POST", `{"model":"r","messages":[{"role":"user","content":"` + strings.Repeat("x", 4096) + `"}]}`, 413, "exceeds 2048 bytes"},
		{"wrong method", "GET", "", 405, "POST"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.raw(t, tc.method, "/v1/chat/completions", tc.body)
			r.wantStatus(t, tc.status)
			e, _ := r.json(t)["error"].(map[string]any)
			if e == nil || e["type"] == nil || e["code"] == nil {
				t.Fatalf("not an OpenAI envelope: %s", r.Body)
			}
			if msg := r.errMessage(t); !strings.Contains(msg, tc.msg) {
				t.Errorf("message %q lacks %q", msg, tc.msg)
			}
		})
	}
	if fs["p"].Calls()+fs["q"].Calls() != 0 {
		t.Error("a rejected request reached an upstream")
	}
}

func TestClientKeys(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b"))})
	g := start(t, "client_keys: [client-key-1]\n"+apiCfg, fs)
	for _, tc := range []struct {
		name    string
		headers []string
		status  int
	}{
		{"no key", nil, 401},
		{"wrong key", []string{"Authorization", "Bearer client-key-2"}, 401},
		{"right key", []string{"Authorization", "Bearer client-key-1"}, 200},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := g.post(t, "a", "", tc.headers...)
			r.wantStatus(t, tc.status)
			if tc.status == 401 {
				if e, _ := r.json(t)["error"].(map[string]any); e == nil || e["type"] != "authentication_error" {
					t.Errorf("not an OpenAI envelope: %s", r.Body)
				}
			}
		})
	}
	if n := fs["p"].Calls(); n != 1 {
		t.Errorf("upstream called %d times, want once (the authorized request)", n)
	}
	if got := fs["p"].Requests()[0].Header.Get("Authorization"); got != "Bearer "+secret {
		t.Errorf("the client's key reached the upstream, or the provider key did not: %q", got)
	}
}

func TestModelsListsRoutesAndTargets(t *testing.T) {
	g := start(t, apiCfg, fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b"))}))
	var list struct {
		Object string `json:"object"`
		Data   []struct {
			ID     string `json:"id"`
			Object string `json:"object"`
		} `json:"data"`
	}
	g.getJSON(t, "/v1/models", &list)
	var ids []string
	for _, m := range list.Data {
		if m.Object != "model" {
			t.Errorf("entry %+v", m)
		}
		ids = append(ids, m.ID)
	}
	if list.Object != "list" || strings.Join(ids, ",") != "r,a,b" {
		t.Errorf("models: %+v", list)
	}
}

// Keys never appear in decision records, /v1/health or /metrics, whatever happened.
func TestKeysNeverLeak(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(corpus(t, "openai-invalid-api-key-401")),
		"q": script(ok("model-b", "b")),
	})
	g := start(t, strings.Replace(apiCfg, "strategy: fastest,", "fallback_on: [auth],", 1), fs)
	g.post(t, "r", "").wantStatus(t, 200)
	g.post(t, "r", "").wantStatus(t, 200)
	for i := 1; i <= 2; i++ {
		b, _ := json.Marshal(g.recs.wait(t, i))
		if bytes.Contains(b, []byte(secret)) {
			t.Errorf("decision record shows the key: %s", b)
		}
	}
	for _, path := range []string{"/v1/health", "/metrics", "/v1/models"} {
		r := g.raw(t, http.MethodGet, path, "")
		r.wantStatus(t, 200)
		if bytes.Contains(r.Body, []byte(secret)) {
			t.Errorf("%s shows the key", path)
		}
	}
	if !strings.Contains(string(g.raw(t, http.MethodGet, "/metrics", "").Body), "auth") {
		t.Error("/metrics does not count the auth attempt")
	}
}

// Everything but "model" reaches the upstream exactly as the client sent it.
func TestRequestPassesThroughUntouched(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b"))})
	g := start(t, apiCfg, fs)
	sent := map[string]string{
		"model":           `"a"`,
		"messages":        `[{"role":"system","content":"be brief"},{"role":"user","content":"weather?"}]`,
		"tools":           `[{"type":"function","function":{"name":"get_weather","description":"Get the weather","parameters":{"type":"object","properties":{"location":{"type":"string"}},"required":["location"]},"strict":true}}]`,
		"tool_choice":     `"auto"`,
		"response_format": `{"type":"json_schema","json_schema":{"name":"w","schema":{"type":"object"}}}`,
		"logprobs":        `true`,
		"top_logprobs":    `3`,
		"temperature":     `0.2`,
		"x_vendor_extra":  `{"nested":[1,"two",{"three":null}]}`,
	}
	var parts []string
	for k, v := range sent {
		parts = append(parts, `"`+k+`":`+v)
	}
	g.raw(t, http.MethodPost, "/v1/chat/completions", "{"+strings.Join(parts, ",")+"}").wantStatus(t, 200)
	var got map[string]json.RawMessage
	if err := json.Unmarshal(fs["p"].Requests()[0].Body, &got); err != nil {
		t.Fatal(err)
	}
	for k, v := range sent {
		want := v
		if k == "model" {
			want = `"model-a"`
		}
		if string(got[k]) != want {
			t.Errorf("%s reached the upstream as %s, want %s", k, got[k], want)
		}
	}
	if len(got) != len(sent) {
		t.Errorf("the upstream got %d members, the client sent %d", len(got), len(sent))
	}
}
