package main

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// Review 61h (8): config.go says a base_url may hold a secret
// (https://user:password@host) and "its value is never quoted in an error
// (docs/security.md)". versionlessWarning covered every bare-host
// openai provider, the self-hosted servers where a basic-auth password in
// the URL is most common, and quoted base_url whole, twice, on `detour
// check`'s output (CI logs, terminals).
func TestReview61hBareHostWarningQuotesURLSecret(t *testing.T) {
	cfg, err := config.Parse("detour.yaml", []byte(`providers:
  - {name: vllm, dialect: openai, base_url: "http://admin:S3cretPassw0rd@10.0.0.5:8000", api_key: sk-test-0123456789}
targets:
  - {name: m, model: llama, providers: [vllm]}
`), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatalf("config with userinfo in base_url: %v", err)
	}
	for _, w := range configWarnings(cfg) {
		if strings.Contains(w, "S3cretPassw0rd") {
			t.Errorf("detour check's warning quotes the base_url's password: %q", w)
		}
	}
}

// Review 61h (8b): a hosted vendor that serves the OpenAI API at its bare
// host (Perplexity: POST https://api.perplexity.ai/chat/completions is its
// documented endpoint) is not asked the self-hosted question.
func TestReview61hBareHostHostedVendor(t *testing.T) {
	for _, u := range []string{"https://api.perplexity.ai", "https://api.deepseek.com"} {
		if w := versionlessWarning(&config.Provider{Name: "p", Dialect: "openai", BaseURL: u}); w != "" {
			t.Errorf("%s: warned: %q", u, w)
		}
	}
}
