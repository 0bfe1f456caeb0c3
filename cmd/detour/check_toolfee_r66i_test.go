package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// detour check prints a target's web_search and web_fetch prices beside
// its token prices, and warns, under a budgeted key, about the priced
// Anthropic targets it may reach whose price names no web_search: Claude
// Code's WebSearch reaches them through the Messages door and each search
// is billed beside the tokens (build 66i). A target the key cannot reach,
// or one of another dialect, is not named.
func TestCheckToolFeesBuild66i(t *testing.T) {
	path := filepath.Join(t.TempDir(), "detour.yaml")
	if err := os.WriteFile(path, []byte(`providers:
  - {name: a, dialect: anthropic, base_url: "https://api.anthropic.com", api_key: x}
  - {name: o, dialect: openai, base_url: "https://api.openai.com", api_key: x}
targets:
  - {name: searched, model: claude-sonnet-4-6, providers: [a], price: {input: 3, output: 15, web_search: 10, web_fetch: 0}}
  - {name: bare, model: claude-sonnet-4-6, providers: [a], price: {input: 3, output: 15}}
  - {name: other, model: claude-haiku-4-5, providers: [a], price: {input: 1, output: 5}}
  - {name: gpt, model: gpt-5, providers: [o], price: {input: 1.25, output: 10}}
routes:
  - {name: r, targets: [searched, bare, gpt]}
  - {name: s, targets: [other]}
client_keys:
  - {name: team, key: sk-team-0123456789, routes: [r], budget: {usd_per_day: 5}}
  - {name: free, key: sk-free-0123456789, routes: [r]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"target searched: model claude-sonnet-4-6 via a, price $3/$15 per million tokens in/out, web search $10 per 1,000, web fetch $0 per 1,000\n",
		"target bare: model claude-sonnet-4-6 via a, price $3/$15 per million tokens in/out\n",
		"    warning: web searches Claude runs at these targets do not count against its budget (their price has no web_search; Anthropic's is $10 per 1,000): bare\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check does not print %q:\n%s", want, out.String())
		}
	}
	if n := strings.Count(out.String(), "web searches Claude runs"); n != 1 {
		t.Errorf("the warning is printed %d times, want once (the budgeted key's):\n%s", n, out.String())
	}
}
