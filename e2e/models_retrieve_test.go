package e2e

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// GET /v1/models/{name}: the one entry of the model list, in OpenAI's shape
// or, with anthropic-version, Anthropic's (the openai and Anthropic SDKs'
// models.retrieve); a name the key may not call, or none Detour knows, is
// a 404 in the client's envelope.
func TestModelRetrieve(t *testing.T) {
	cfg := `
client_keys:
  - {name: all, key: key-all}
  - {name: few, key: key-few, routes: [r]}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r, targets: [a]}
  - {name: team/deep, targets: [a]}
`
	g := start(t, cfg, fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))}))
	var m struct {
		ID, Object, Type string
		OwnedBy          string `json:"owned_by"`
		DisplayName      string `json:"display_name"`
		CreatedAt        string `json:"created_at"`
	}
	g.getJSON(t, "/v1/models/r", &m, "Authorization", "Bearer key-all")
	if m.ID != "r" || m.Object != "model" || m.OwnedBy != "detour" {
		t.Errorf("openai shape: %+v", m)
	}
	m = struct {
		ID, Object, Type string
		OwnedBy          string `json:"owned_by"`
		DisplayName      string `json:"display_name"`
		CreatedAt        string `json:"created_at"`
	}{}
	g.getJSON(t, "/v1/models/team/deep", &m, "x-api-key", "key-all", "anthropic-version", "2023-06-01")
	if m.ID != "team/deep" || m.Type != "model" || m.DisplayName == "" || m.CreatedAt == "" {
		t.Errorf("anthropic shape: %+v", m)
	}
	for _, tc := range []struct {
		path    string
		headers []string
		envType string
	}{
		{"/v1/models/nope", []string{"Authorization", "Bearer key-all"}, "invalid_request_error"},
		{"/v1/models/team/deep", []string{"Authorization", "Bearer key-few"}, "invalid_request_error"},
		{"/v1/models/nope", []string{"x-api-key", "key-all", "anthropic-version", "2023-06-01"}, "not_found_error"},
	} {
		r := g.raw(t, http.MethodGet, tc.path, "", tc.headers...)
		r.wantStatus(t, 404)
		e, _ := r.json(t)["error"].(map[string]any)
		if e == nil || e["type"] != tc.envType {
			t.Errorf("%s %v: %s", tc.path, tc.headers, r.Body)
		}
	}
	r := g.raw(t, http.MethodGet, "/v1/models/r", "", "Authorization", "Bearer wrong")
	r.wantStatus(t, 401)
}

// A path Detour does not serve is a 404 in the envelope of the API the
// client speaks: Anthropic's for a request with anthropic-version (the
// Anthropic SDKs' batches, files, …), OpenAI's otherwise.
func TestUnknownPathEnvelope(t *testing.T) {
	g := start(t, apiCfg, fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b"))}))
	r := g.raw(t, http.MethodPost, "/v1/messages/batches", `{"requests":[]}`, "x-api-key", "k", "anthropic-version", "2023-06-01")
	r.wantStatus(t, 404)
	body := r.json(t)
	e, _ := body["error"].(map[string]any)
	if body["type"] != "error" || e == nil || e["type"] != "not_found_error" || e["message"] == "" {
		t.Errorf("anthropic client: %s", r.Body)
	}
	r = g.raw(t, http.MethodPost, "/v1/batches", `{}`)
	r.wantStatus(t, 404)
	if e, _ := r.json(t)["error"].(map[string]any); e == nil || e["type"] != "invalid_request_error" {
		t.Errorf("openai client: %s", r.Body)
	}
}
