package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/config"
)

// Operator review 60: a day's budget above the month's (the month's
// refuses first, the day's never does: a slip of a digit) and a client key
// of 3 characters (too short to be told from a word: the logs' scrubber
// leaves it, docs/config.md) passed `detour check` without a word.
func TestOp60CheckWarnsOfDayAboveMonthAndShortClientKeys(t *testing.T) {
	cfg, err := config.Parse("detour.yaml", []byte(`client_keys:
  - {name: team-a, key: sk-team-a-0123456789, budget: {usd_per_day: 1, usd_per_month: 0.05}}
  - {name: team-b, key: abc}
  - {name: team-c, key: sk-team-c-0123456789, budget: {usd_per_day: 1, usd_per_month: 20}}
providers:
  - {name: p, dialect: openai, base_url: https://api.example.test/v1, api_key: sk-test-0123456789}
targets:
  - {name: gpt, model: gpt-4o, providers: [p], price: {input: 1, output: 1}}
`), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	ws := strings.Join(configWarnings(cfg), "\n")
	for _, want := range []string{`detour.yaml:2: client key "team-a": usd_per_day ($1) is above usd_per_month ($0.05)`, `detour.yaml:3: client key "team-b": its key is 3 characters`} {
		if !strings.Contains(ws, want) {
			t.Errorf("no warning %q; warnings:\n%s", want, ws)
		}
	}
	if strings.Contains(ws, `client key "team-c"`) || strings.Contains(ws, "abc") {
		t.Errorf("a warning for team-c, or the short key itself, in:\n%s", ws)
	}
}

// Operator review 60: `detour serve -config FILE` was refused ("flag
// provided but not defined: -config"), the spelling most tools use; it is
// -c's other name now, for check and serve.
func TestOp60ConfigFlagIsAnotherNameForC(t *testing.T) {
	for _, k := range []string{"DETOUR_CLIENT_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY"} {
		t.Setenv(k, "k-0123456789")
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-config", "../../internal/config/testdata/spec_verbatim.yaml"}, nil, &out, &errb); code != 0 && strings.Contains(errb.String(), "flag provided but not defined") {
		t.Fatalf("check -config: exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), "spec_verbatim.yaml: ok") {
		t.Errorf("check -config did not read the file: %s %s", out.String(), errb.String())
	}
	errb.Reset()
	if code := run([]string{"serve", "-config", filepath.Join(t.TempDir(), "missing.yaml")}, nil, &out, &errb); code == 0 || strings.Contains(errb.String(), "flag provided but not defined") {
		t.Errorf("serve -config: exit %d: %s", code, errb.String())
	}
}
