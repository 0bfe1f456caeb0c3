package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A provider key or base URL with whitespace or a control character (a
// pasted key with a trailing newline, a stray space) is a `detour check`
// error at its line, and the value never appears in the message.
func TestCheckRefusesKeysAndURLsWithWhitespace(t *testing.T) {
	t.Setenv("PASTED_KEY", "sk-pasted-key-77\n")
	path := filepath.Join(t.TempDir(), "detour.yaml")
	os.WriteFile(path, []byte(`providers:
  - {name: a, dialect: openai, base_url: "https://a.test/v1", api_key: "sk-inner space-11"}
  - {name: b, dialect: openai, base_url: "https://b.test/v1", api_key: "${PASTED_KEY}"}
  - {name: c, dialect: openai, base_url: "https://c.test/v1 ", api_key: sk-fine}
  - {name: d, dialect: openai, base_url: "https://d.test/v1\tsk-in-url-33", api_key: "sk-tab\tkey-44"}
  - {name: e, dialect: anthropic, base_url: "https://e.test", api_key: "\u00a0sk-nbsp-55"}
targets:
  - {name: t, model: m, providers: [a, b, c, d, e]}
`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s", code, out.String())
	}
	got := strings.Split(strings.TrimSpace(errb.String()), "\n")
	want := []string{
		path + ":2: provider api_key contains whitespace or a control character (value not shown)",
		path + ":3: provider api_key contains whitespace or a control character (value not shown)",
		path + ":4: provider base_url contains whitespace or a control character (value not shown)",
		path + ":5: provider base_url contains whitespace or a control character (value not shown)",
		path + ":5: provider api_key contains whitespace or a control character (value not shown)",
		path + ":6: provider api_key contains whitespace or a control character (value not shown)",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", errb.String(), strings.Join(want, "\n"))
	}
	for _, secret := range []string{"inner", "pasted-key", "c.test", "in-url", "tab", "nbsp"} {
		if strings.Contains(errb.String(), secret) {
			t.Errorf("the message shows %q:\n%s", secret, errb.String())
		}
	}
}
