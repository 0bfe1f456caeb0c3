package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// detour check prints each target's price with its tiers, so a mistyped
// long-context threshold or fast price is seen before it bills (operator
// review 53b: check said nothing of prices).
func TestCheckPrintsPrices(t *testing.T) {
	path := filepath.Join(t.TempDir(), "detour.yaml")
	if err := os.WriteFile(path, []byte(`providers:
  - {name: g, dialect: gemini, base_url: "https://generativelanguage.googleapis.com", api_key: x}
  - {name: a, dialect: anthropic, base_url: "https://api.anthropic.com", api_key: y}
targets:
  - {name: pro, model: gemini-2.5-pro, providers: [g], price: {input: 1.25, output: 10, long_context: {above: 200000, input: 2.5, output: 15}}}
  - {name: opus, model: claude-opus-4-6, providers: [a], price: {input: 5, output: 25, long_context: {above: 200000, input: 10, output: 37.5}, fast: {input: 30, output: 150}}}
routes:
  - {name: r, targets: [pro, opus]}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, want := range []string{
		"target pro: model gemini-2.5-pro via g, price $1.25/$10 per million tokens in/out ($2.5/$15 above 200000 input tokens)",
		"target opus: model claude-opus-4-6 via a, price $5/$25 per million tokens in/out ($10/$37.5 above 200000 input tokens), fast mode $30/$150 ($60/$225 above 200000)",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("check does not print %q:\n%s", want, out.String())
		}
	}
}
