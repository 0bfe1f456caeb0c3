package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
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

// Operator review 52: `detour classify -c FILE --provider P` classifies as
// serve does for P's answers, P's dialect read from FILE (a rule narrowed
// by dialect matched nothing before); a P the file does not configure, or
// a --dialect P does not speak, is a usage error naming what the file has.
func TestClassifyTakesTheProvidersDialectFromTheConfig(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "detour.yaml")
	os.WriteFile(cfg, []byte(`providers:
  - {name: anthropic, dialect: anthropic, base_url: http://127.0.0.1:9, api_key: sk-ant-test}
  - {name: openai, dialect: openai, base_url: http://127.0.0.1:9/v1, api_key: sk-test}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
classify:
  rules:
    - {dialect: anthropic, status: 400, match: "(?i)credit balance", class: unknown}
`), 0o644)
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`
	for _, c := range []struct {
		args []string
		code int
		out  string
	}{
		{[]string{"--provider", "anthropic"}, 0, `"rule:1"`},
		{[]string{"--provider", "openai"}, 0, `"quota"`},
		{[]string{"--provider", "anthrpic"}, 2, "providers: anthropic, openai"},
		{[]string{"--provider", "anthropic", "--dialect", "openai"}, 2, "speaks anthropic"},
	} {
		var out, errOut strings.Builder
		code := runClassify(append([]string{"-c", cfg, "--status", "400"}, c.args...), strings.NewReader(body), &out, &errOut)
		if code != c.code || !strings.Contains(out.String()+errOut.String(), c.out) {
			t.Errorf("%v: exit %d, %s%s; want exit %d with %s", c.args, code, out.String(), errOut.String(), c.code, c.out)
		}
	}
}

// Operator review 52: with budgets counted in memory and no decision file
// to restore them from, every restart gives every key its budget back;
// check and serve's start say so, naming the keys.
func TestBudgetRestartWarning(t *testing.T) {
	for _, c := range []struct {
		head string
		warn bool
	}{
		{"state: {store: memory}\ndecisions: {path: \"-\"}\n", true},
		{"state: {store: memory}\n", true},
		{"state: {store: memory}\ndecisions: {path: /var/log/detour/decisions.jsonl}\n", false},
		{"state: {store: redis, url: \"redis://127.0.0.1:6379/0\"}\ndecisions: {path: \"-\"}\n", false},
	} {
		cfg, err := config.Parse("detour.yaml", []byte(c.head+`client_keys:
  - {name: team-b, key: sk-r52-team-b-key-0001, budget: {usd_per_day: 2}}
  - {name: ci, key: sk-r52-ci-key-00000001}
providers:
  - {name: openai, dialect: openai, base_url: http://127.0.0.1:9/v1, api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
`), func(string) (string, bool) { return "", false })
		if err != nil {
			t.Fatalf("%q: %v", c.head, err)
		}
		w := budgetRestartWarning(cfg)
		at := fmt.Sprintf("detour.yaml:%d: ", strings.Count(c.head, "\n")+2) // team-b's line
		if (w != "") != c.warn || c.warn && !strings.HasPrefix(w, at+"client keys team-b have") {
			t.Errorf("%q: warning %q, want one naming team-b alone: %v", c.head, w, c.warn)
		}
	}
}

// Review 52: the --jsonl lines name their provider too, and with -c its
// dialect is read from the file as for --provider: a rule narrowed by
// dialect matches them (--suggest --jsonl offered a rule for an answer the
// operator's rule already filed).
func TestClassifyJSONLLineTakesItsProvidersDialect(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "detour.yaml")
	os.WriteFile(cfg, []byte(`providers:
  - {name: anthropic, dialect: anthropic, base_url: http://127.0.0.1:9, api_key: sk-ant-test}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
classify:
  rules:
    - {dialect: anthropic, status: 400, match: "(?i)credit balance", class: unknown}
`), 0o644)
	body := `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}}`
	b, _ := json.Marshal(body)
	line := `{"provider":"anthropic","status":400,"body":` + string(b) + "}\n"

	// What serve (and classify --provider) says of this answer.
	var one, oneErr strings.Builder
	runClassify([]string{"-c", cfg, "--provider", "anthropic", "--status", "400"}, strings.NewReader(body), &one, &oneErr)
	var out, errOut strings.Builder
	code := runClassify([]string{"-c", cfg, "--jsonl"}, strings.NewReader(line), &out, &errOut)
	if !strings.Contains(out.String(), `"rule:1"`) {
		t.Errorf("--jsonl line from provider anthropic: exit %d, %s%s; classify --provider anthropic (serve's reading) says %s", code, out.String(), errOut.String(), one.String())
	}
}
