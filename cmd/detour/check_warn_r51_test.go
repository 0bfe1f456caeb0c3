package main

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// Review 51a: docs/config.md "Secrets are never echoed. Errors about a
// value that came from the environment … say (value not shown) instead of
// the value". The new decisions.path warning prints the directory of a
// path taken from the environment as it is.
func TestR51aDecisionsDirWarningEchoesAnEnvironmentValue(t *testing.T) {
	env := map[string]string{"DECISIONS_PATH": "/srv/tenant-acme-7f3a9c/no-such-dir/decisions.jsonl"}
	cfg, err := config.Parse("detour.yaml", []byte(`decisions: {path: "${DECISIONS_PATH}"}
providers:
  - {name: openai, dialect: openai, base_url: http://127.0.0.1:9/v1, api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
`), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range configWarnings(cfg) {
		if strings.Contains(w, "tenant-acme-7f3a9c") {
			t.Errorf("a warning shows a value from the environment: %s", w)
		}
	}
}
