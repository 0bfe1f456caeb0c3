package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A base_url that holds credentials (https://user:password@host, which the
// scrubber treats as secrets) and does not parse must not be quoted in the
// `detour check` error: the password is a secret as much as api_key is
// (docs/security.md, "Keys, schemes and the operator endpoints": a base_url
// "is, or may hold, a key"; its value is never echoed).
func TestCheckNeverQuotesBaseURLCredentials(t *testing.T) {
	path := filepath.Join(t.TempDir(), "detour.yaml")
	os.WriteFile(path, []byte(`providers:
  - {name: a, dialect: openai, base_url: "https://gw:Pa55word#9Secret@llm.example.com/v1", api_key: sk-fine-key-1}
  - {name: b, dialect: openai, base_url: "https://gw:Pa55%word8Secret@llm.example.com/v1", api_key: sk-fine-key-2}
  - {name: c, dialect: openai, base_url: "htps://gw:Pa55word7Secret@llm.example.com/v1", api_key: sk-fine-key-3}
targets:
  - {name: t, model: m, providers: [a, b, c]}
`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s", code, out.String())
	}
	for _, secret := range []string{"9Secret", "8Secret", "7Secret"} {
		if strings.Contains(errb.String(), secret) {
			t.Errorf("the check error shows a base_url password (%q)", secret)
		}
	}
	if t.Failed() {
		t.Logf("stderr:\n%s", errb.String())
	}
}

// A header value glued to its name in a flow mapping ({x-api-key:sk-…},
// no space after the colon) is one YAML key: the error must not echo what
// follows the colon, as the provider keys' own "api_key:sk-…" case does not.
func TestCheckNeverQuotesAGluedHeaderValue(t *testing.T) {
	path := filepath.Join(t.TempDir(), "detour.yaml")
	os.WriteFile(path, []byte(`providers:
  - name: a
    dialect: anthropic
    base_url: "https://api.anthropic.com"
    headers: {x-api-key:sk-ant-api03-HeaderSecret42}
targets:
  - {name: t, model: m, providers: [a]}
`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if strings.Contains(errb.String(), "HeaderSecret42") {
		t.Errorf("the check error shows the header's secret value:\n%s", errb.String())
	}
}

// key_sha256 is where the operator pastes a client key's hash; pasting the
// key itself there by mistake must not print the key in the error (the key
// is the secret the hash stands in for; config.value.show hides secrets).
func TestCheckNeverQuotesAKeyPastedAsItsHash(t *testing.T) {
	path := filepath.Join(t.TempDir(), "detour.yaml")
	os.WriteFile(path, []byte(`client_keys:
  - {name: app, key_sha256: "sk-client-Pasted9KeyNotAHash1234"}
providers:
  - {name: a, dialect: openai, base_url: "https://llm.example.com/v1", api_key: sk-fine-key-1}
targets:
  - {name: t, model: m, providers: [a]}
`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if strings.Contains(errb.String(), "Pasted9Key") {
		t.Errorf("the check error shows the client key pasted into key_sha256:\n%s", errb.String())
	}
}
