package main

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// Newcomer 57: the README's dialect table says the openai dialect calls
// POST {base_url}/chat/completions and config.md's examples give
// https://api.openai.com/v1, while the anthropic and gemini base_urls in the
// same examples carry no version path. An operator who writes OpenAI's the
// same way (https://api.openai.com, no /v1) gets `detour check` "ok" with no
// warning; OpenAI then answers every request 404
// {"error":{"message":"Invalid URL (POST /chat/completions)","type":"invalid_request_error","param":null,"code":null}}
// (microsoft/TaskWeaver#11, api_base "https://api.openai.com/"; OpenHands#485,
// "adding /v1 fixed it"), which Detour classifies `unavailable`: the
// endpoint cools for 24h and clients are told `code: model_not_found`.
// `detour check` already warns about the opposite mistake for anthropic and
// gemini (a version path the dialect adds itself, config.md:13-14).
func TestNewcomer57CheckWarnsOfOpenAIHostWithoutV1(t *testing.T) {
	cfg, err := config.Parse("detour.yaml", []byte(`providers:
  - {name: openai, dialect: openai, base_url: https://api.openai.com, api_key: sk-test-0123456789}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
`), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range configWarnings(cfg) {
		if strings.Contains(w, "provider openai") && strings.Contains(w, "/v1") {
			return
		}
	}
	t.Errorf("no warning for an openai provider at https://api.openai.com without /v1 (every call gets OpenAI's 404 \"Invalid URL (POST /chat/completions)\", classified unavailable: 24h cooldown, clients told model_not_found); warnings: %q", configWarnings(cfg))
}

// Newcomer 57: `detour help` is where a newcomer looks first; its decisions
// line omits --target, --client and --id, which `detour decisions --help`
// (decisions.go:45) and README.md:457-458 ("--client K] [--id ID]", "--id
// finds the request whose X-Detour-Decision header a user sends you") name.
func TestNewcomer57HelpNamesEveryDecisionsFilter(t *testing.T) {
	var out, errb strings.Builder
	run([]string{"help"}, strings.NewReader(""), &out, &errb)
	for _, f := range []string{"--target", "--client", "--id"} {
		if !strings.Contains(out.String(), f) {
			t.Errorf("`detour help` does not name decisions' %s flag:\n%s", f, out.String())
		}
	}
}

// TestNewcomer57VersionlessWarningOnlyWhereTheHostNeedsAPath: a root with
// its path, DeepSeek's bare host (it serves both) and another dialect are
// not warned of; OpenRouter's bare host is, with its path; a self-hosted
// server's bare host is asked about /v1 (operator review 61f).
func TestNewcomer57VersionlessWarningOnlyWhereTheHostNeedsAPath(t *testing.T) {
	for url, want := range map[string]string{
		"https://api.openai.com/v1":      "",
		"https://api.openai.com/":        "give https://api.openai.com/v1",
		"https://openrouter.ai":          "give https://openrouter.ai/api/v1",
		"https://api.deepseek.com":       "",
		"http://127.0.0.1:8000":          "if this server is one of those, give http://127.0.0.1:8000/v1",
		"http://127.0.0.1:8000/v1":       "",
		"https://api.groq.com/openai/v1": "",
	} {
		got := versionlessWarning(&config.Provider{Name: "p", Dialect: "openai", BaseURL: url})
		if want == "" && got != "" || want != "" && !strings.Contains(got, want) {
			t.Errorf("%s: %q, want %q", url, got, want)
		}
	}
	if got := versionlessWarning(&config.Provider{Name: "p", Dialect: "anthropic", BaseURL: "https://api.openai.com"}); got != "" {
		t.Errorf("anthropic dialect: %q", got)
	}
}
