package config_test

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

func responsesConfig(dialect, value string) string {
	return `providers:
  - {name: p, dialect: ` + dialect + `, base_url: "http://127.0.0.1:1", responses: ` + value + `}
targets:
  - {name: t, model: m, providers: [p]}
`
}

// responses: true is an openai-dialect option, false by default.
func TestProviderResponses(t *testing.T) {
	cfg, err := config.Parse("t.yaml", []byte(responsesConfig("openai", "true")), nil)
	if err != nil || !cfg.Providers[0].Responses {
		t.Fatalf("openai responses: true: %v, %+v", err, cfg)
	}
	cfg, err = config.Parse("t.yaml", []byte(strings.Replace(responsesConfig("openai", "false"), ", responses: false", "", 1)), nil)
	if err != nil || cfg.Providers[0].Responses {
		t.Fatalf("default: %v", err)
	}
	for _, c := range []struct{ dialect, value, want string }{
		{"anthropic", "true", "only an openai-dialect provider"},
		{"openai", "yes", "must be true or false"},
	} {
		_, err := config.Parse("t.yaml", []byte(responsesConfig(c.dialect, c.value)), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s responses: %s: error %v, want %q", c.dialect, c.value, err, c.want)
		}
	}
}

// completions: true is an openai-dialect option, false by default, with
// responses' errors: file:line, the dialect named, a value not a bool.
func TestProviderCompletions(t *testing.T) {
	cfgFor := func(dialect, value string) string {
		return strings.Replace(responsesConfig(dialect, value), "responses:", "completions:", 1)
	}
	cfg, err := config.Parse("t.yaml", []byte(cfgFor("openai", "true")), nil)
	if err != nil || !cfg.Providers[0].Completions || cfg.Providers[0].Responses {
		t.Fatalf("openai completions: true: %v, %+v", err, cfg)
	}
	cfg, err = config.Parse("t.yaml", []byte(strings.Replace(cfgFor("openai", "false"), ", completions: false", "", 1)), nil)
	if err != nil || cfg.Providers[0].Completions {
		t.Fatalf("default: %v", err)
	}
	for _, c := range []struct{ dialect, value, want string }{
		{"anthropic", "true", "t.yaml:2: provider completions: only an openai-dialect provider serves the legacy Completions API, not anthropic"},
		{"gemini", "true", "not gemini"},
		{"openai", "yes", "t.yaml:2: provider completions"},
		{"openai", "yes", "must be true or false"},
	} {
		_, err := config.Parse("t.yaml", []byte(cfgFor(c.dialect, c.value)), nil)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s completions: %s: error %v, want %q", c.dialect, c.value, err, c.want)
		}
	}
	if _, err := config.Parse("t.yaml", []byte(cfgFor("anthropic", "false")), nil); err != nil {
		t.Errorf("completions: false on anthropic: %v", err)
	}
}
