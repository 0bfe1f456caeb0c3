package metrics

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/config"
)

// Review 32i: configured names bypass the shape guard (any UTF-8 label),
// but Prometheus panics on a label value that is not UTF-8. A name from
// the environment in another encoding (Latin-1 "caf\xe9") is refused by
// the configuration; and were one configured anyway, metrics label it
// "other" rather than panic on every attempt and scrape.
func TestConfiguredNameNotUTF8(t *testing.T) {
	yaml := `
providers:
  - {name: "${PROVIDER}", dialect: openai, base_url: "http://127.0.0.1:1", api_key: sk-test-0000000000}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: ["${PROVIDER}"]}
`
	env := map[string]string{"PROVIDER": "caf\xe9"}
	_, err := config.Parse("detour.yaml", []byte(yaml), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err == nil || !strings.Contains(err.Error(), "UTF-8") {
		t.Errorf("a provider name that is not UTF-8 loads: %v", err)
	}

	name := "caf\xe9"
	m := New()
	m.Retain(Served{Routes: []string{"r"}, Targets: []string{"gpt"}, Providers: []string{name},
		Endpoints: []Endpoint{{"gpt", name}}})
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("metrics panic on a configured name that is not UTF-8: %v", r)
		}
	}()
	m.Attempt("gpt", name, "ok", time.Millisecond, time.Millisecond)
	m.EndpointState("gpt", name, "healthy")
}
