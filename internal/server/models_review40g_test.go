package server_test

import (
	"encoding/json"
	"io"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
)

// Open WebUI users rely on /v1/models answering a list: its
// get_all_models_responses (backend/open_webui/routers/openai.py) iterates
// response.get("data", []) of every connection, and "data": null is not
// iterable (TypeError), which breaks the model list of every connection at
// once. A client key that may call no model must get "data": [], as
// OpenAI's list is always a list. Parsed YAML cannot give a key such a
// list (every name a key lists must exist), so the key's routes are set
// in Go, as a program building its configuration would.
func TestReview40gModelsListEmptyNotNull(t *testing.T) {
	cfg := gatewaytest.Config(t, `
client_keys:
  - {name: team-a, key: key-team-a, routes: [m]}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9", api_key: sk-test-provider-key}
targets:
  - {name: m, model: m, providers: [p]}
`)
	cfg.Clients[0].Routes = []string{"retired"}
	url, _ := gatewaytest.Start(t, cfg, app.Options{})
	for _, c := range []struct{ name, version string }{{"openai", ""}, {"anthropic", "2023-06-01"}} {
		req, _ := http.NewRequest(http.MethodGet, url+"/v1/models", nil)
		req.Header.Set("Authorization", "Bearer key-team-a")
		if c.version != "" {
			req.Header.Set("anthropic-version", c.version)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var list struct {
			Data json.RawMessage `json:"data"`
		}
		if resp.StatusCode != 200 || json.Unmarshal(b, &list) != nil || string(list.Data) != "[]" {
			t.Errorf("%s list: %d %s, want data []", c.name, resp.StatusCode, b)
		}
	}
}
