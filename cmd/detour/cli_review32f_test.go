package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Review 32f (configuration and the CLI).

const good32f = `providers:
  - {name: p1, dialect: openai, base_url: "http://127.0.0.1:1/v1", api_key: sk-good-key-0000}
targets:
  - {name: t1, model: m1, providers: [p1]}
`

// `detour check bad.yaml` (the file as an argument, as `detour classify FILE`
// takes it, and as most validators do) ignores bad.yaml without a word and
// checks ./detour.yaml instead: with a valid detour.yaml beside it the
// operator reads "detour.yaml: ok" and exit 0 for a file that does not load.
// `detour serve other.yaml` likewise serves ./detour.yaml, and `detour
// decisions`/`detour usage` already refuse a stray argument.
func TestCheckDoesNotIgnoreTheFileGivenAsAnArgument(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "detour.yaml"), []byte(good32f), 0o644)
	os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("bogus: 1\n"), 0o644)
	t.Chdir(dir)
	for _, args := range [][]string{
		{"check", "bad.yaml"},
		{"check", "-c", "detour.yaml", "bad.yaml"},
	} {
		var out, errb bytes.Buffer
		code := run(args, nil, &out, &errb)
		if code == 0 || !strings.Contains(errb.String(), "bad.yaml") {
			t.Errorf("detour %s: exit %d, stdout:\n%sstderr:\n%s(want a non-zero exit naming bad.yaml: its error, or a refused argument)",
				strings.Join(args, " "), code, out.String(), errb.String())
		}
	}
}

// The same for serve: `detour serve other.yaml` never looks at other.yaml.
// (Run where no detour.yaml exists, so a failing head does not start a
// server: it says "open detour.yaml: no such file or directory".)
func TestServeDoesNotIgnoreTheFileGivenAsAnArgument(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "other.yaml"), []byte("bogus: 1\n"), 0o644)
	t.Chdir(dir)
	var errb bytes.Buffer
	code := run([]string{"serve", "other.yaml"}, nil, &bytes.Buffer{}, &errb)
	if code == 0 || !strings.Contains(errb.String(), "other.yaml") {
		t.Errorf("detour serve other.yaml: exit %d, stderr:\n%s(want other.yaml's error, or the argument refused)", code, errb.String())
	}
}

// docs/config.md: "Errors about a value ... of a key field (api_key, ...,
// provider headers values ...) say (value not shown)"; an unknown key with
// the value glued to it by a colon is named only up to the colon
// (review 30d). Glued by a space or "=" — a key pasted from a shell line or
// an .env file into a flow mapping, or a header written as "Name value" —
// the whole secret is printed in the error, by `detour check` and in the
// `config reload failed` log line (whose scrubber does not know the new key).
func TestCheckNeverQuotesASecretGluedBySpaceOrEquals(t *testing.T) {
	const tgt = "targets:\n  - {name: t1, model: m1, providers: [p1]}\n"
	for name, file := range map[string]string{
		"api_key space":    "providers:\n  - {name: p1, dialect: openai, base_url: \"http://h/v1\", api_key sk-proj-Leaked32fSecretA}\n" + tgt,
		"api_key equals":   "providers:\n  - {name: p1, dialect: openai, base_url: \"http://h/v1\", api_key=sk-proj-Leaked32fSecretB}\n" + tgt,
		"header space":     "providers:\n  - {name: p1, dialect: openai, base_url: \"http://h/v1\", headers: {Authorization Bearer sk-Leaked32fSecretC}}\n" + tgt,
		"client key space": "client_keys:\n  - {name: a, key ck-Leaked32fSecretD}\nproviders:\n  - {name: p1, dialect: openai, base_url: \"http://h/v1\"}\n" + tgt,
	} {
		t.Run(name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "detour.yaml")
			os.WriteFile(path, []byte(file), 0o644)
			var out, errb bytes.Buffer
			if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
				t.Fatalf("exit %d, want 1; stdout:\n%s", code, out.String())
			}
			if strings.Contains(errb.String(), "Leaked32fSecret") {
				t.Errorf("the check error shows the secret:\n%s", errb.String())
			}
		})
	}
}

// `detour version` (and --version) says what the binary is, for a bug
// report (operator review 48: nothing did): its module version and the
// Go version it was built with.
func TestVersionSaysWhatRuns(t *testing.T) {
	for _, arg := range []string{"version", "--version"} {
		var out, errb bytes.Buffer
		if code := run([]string{arg}, nil, &out, &errb); code != 0 {
			t.Fatalf("%s: exit %d: %s", arg, code, errb.String())
		}
		if s := out.String(); !strings.HasPrefix(s, "detour ") || !strings.Contains(s, " go1.") {
			t.Errorf("%s: %q", arg, s)
		}
	}
}

// A build without VCS stamping (the image's, -buildvcs=false) names the
// commit -ldflags gave it (operator review 50: the image could not say).
func TestVersionNamesTheLinkedCommit(t *testing.T) {
	old := commit
	commit = "0123456789abcdef"
	defer func() { commit = old }()
	var out bytes.Buffer
	run([]string{"version"}, nil, &out, &out)
	if !strings.Contains(out.String(), "commit ") {
		t.Errorf("%q", out.String())
	}
}
