package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Review 32h. The stray-argument refusal added in 3d8926a quotes the
// argument whole. An environment assignment written after the command — as
// in a compose/k8s `command:`/`args:` list, or `detour serve -c f.yaml
// OPENAI_API_KEY=sk-…` typed for `env OPENAI_API_KEY=… detour serve` — is
// printed with its secret to stderr (the container log), the very shape
// ('name=value') the same commit stopped quoting in config errors.
func TestStrayArgumentNeverQuotesASecret_review32h(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "detour.yaml")
	os.WriteFile(path, []byte(good32f), 0o644)
	for _, args := range [][]string{
		{"check", "-c", path, "OPENAI_API_KEY=sk-proj-LeakedRev32hSecretA0123456789"},
		{"serve", "-c", path, "ANTHROPIC_API_KEY=sk-ant-LeakedRev32hSecretB0123456789"},
	} {
		var out, errb bytes.Buffer
		code := run(args, nil, &out, &errb)
		if code != 2 {
			t.Fatalf("detour %s: exit %d, want 2", args[0], code)
		}
		if strings.Contains(errb.String(), "LeakedRev32hSecret") {
			t.Errorf("detour %s prints the secret of a stray NAME=value argument:\n%s", args[0], errb.String())
		}
	}
}

// unknownName quotes a run without a separator whole up to 32 characters
// ("Detour's keys are shorter, an API key pasted as a key longer"). Azure
// OpenAI keys are 32 hex characters and Mistral keys 32 alphanumerics: such
// a key pasted as a key (here after a ',' typed for ':' in a flow mapping)
// is printed whole by `detour check` and the reload log.
func TestCheckNeverQuotesA32CharacterKey_review32h(t *testing.T) {
	const key = "9f86d081884c7d659a2feaa0c55ad015" // 32 hex, an Azure OpenAI key's shape
	file := "providers:\n  - {name: p1, dialect: openai, base_url: \"http://h/v1\", api_key, " + key + "}\n" +
		"targets:\n  - {name: t1, model: m1, providers: [p1]}\n"
	path := filepath.Join(t.TempDir(), "detour.yaml")
	os.WriteFile(path, []byte(file), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
	}
	if strings.Contains(errb.String(), key) {
		t.Errorf("the check error shows a 32-character key:\n%s", errb.String())
	}
}
