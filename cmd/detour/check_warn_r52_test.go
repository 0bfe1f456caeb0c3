package main

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// Probe 52a: an embeddings route that fails over between two embedding
// models (declared at one size, as the dimensions check asks) passed
// `detour check` without a word, and a failover then answered 200 with
// vectors from another model's space ("Embeddings that different models
// generate aren't comparable … even when the successor model produces
// embeddings with the same number of dimensions", Voyage AI's migration
// guide). One model under two names (a relay's prefix, case) is one model.
func TestCheckWarnsOfAnEmbeddingsRouteMixingModels(t *testing.T) {
	for _, c := range []struct {
		name, second string
		warn         bool
	}{
		{"two models", "{name: gem, model: gemini-embedding-001, providers: [gemini], dimensions: 1536}", true},
		{"one model under a relay's name", "{name: gem, model: OpenAI/text-embedding-3-small, providers: [gemini], dimensions: 1536}", false},
	} {
		cfg, err := config.Parse("detour.yaml", []byte(`providers:
  - {name: openai, dialect: openai, base_url: http://127.0.0.1:9/v1, api_key: sk-test}
  - {name: gemini, dialect: gemini, base_url: http://127.0.0.1:9, api_key: g-test}
targets:
  - {name: small, model: text-embedding-3-small, providers: [openai], dimensions: 1536}
  - `+c.second+`
routes:
  - {name: vectors, targets: [small, gem]}
`), func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		warned := false
		for _, w := range configWarnings(cfg) {
			if strings.Contains(w, "route vectors") && strings.Contains(w, "text-embedding-3-small") {
				warned = true
			}
		}
		if warned != c.warn {
			t.Errorf("%s: warned %v, want %v: %q", c.name, warned, c.warn, configWarnings(cfg))
		}
	}
}

// Probe 52a: a base_url copied from a vendor's reference with its version
// path (Google's https://generativelanguage.googleapis.com/v1beta,
// Anthropic's https://api.anthropic.com/v1) passed check, and every call
// then went to /v1beta/v1beta/models/… or /v1/v1/messages.
func TestCheckWarnsOfABaseURLWithTheDialectsVersion(t *testing.T) {
	for base, warn := range map[string]bool{
		"{name: g, dialect: gemini, base_url: https://generativelanguage.googleapis.com/v1beta, api_key: k}": true,
		"{name: g, dialect: gemini, base_url: https://generativelanguage.googleapis.com, api_key: k}":        false,
		"{name: g, dialect: anthropic, base_url: https://api.anthropic.com/v1, api_key: k}":                  true,
		"{name: g, dialect: anthropic, base_url: https://api.anthropic.com, api_key: k}":                     false,
		"{name: g, dialect: openai, base_url: https://api.openai.com/v1, api_key: k}":                        false,
	} {
		cfg, err := config.Parse("detour.yaml", []byte("providers:\n  - "+base+"\ntargets:\n  - {name: t, model: m, providers: [g]}\n"),
			func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		warned := false
		for _, w := range configWarnings(cfg) {
			warned = warned || strings.Contains(w, "provider g: base_url ends in")
		}
		if warned != warn {
			t.Errorf("%s: warned %v, want %v", base, warned, warn)
		}
	}
}
