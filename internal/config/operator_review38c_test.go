package config

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Review 38c: an operator who makes every mistake. Each case is a file a
// person could write; the error must name the line and never a secret.

// review38cNoEnv is an environment where nothing is set.
func review38cNoEnv(string) (string, bool) { return "", false }

// An operator relies on `detour check` (and a reload's log line, which the
// scrubber of the running configuration cannot clean of a key it has never
// seen) never printing a secret. A password or key that happens to begin
// with '*' is, unquoted, a YAML alias: yaml's "unknown anchor" message
// quoted it whole.
func TestUnquotedSecretStartingWithStarIsNotEchoed_review38c(t *testing.T) {
	const pw = "Zq8vLm2Rt5Xw9Kp3Hd7N"
	for _, yml := range []string{
		"state:\n  store: redis\n  url: redis://127.0.0.1:6379/0\n  password: *" + pw + "\n" + base,
		"client_keys: [*" + pw + "]\n" + base,
		base + "admin_keys:\n  - *" + pw + "\n",
	} {
		_, err := Parse("c.yaml", []byte(yml), review38cNoEnv)
		if err == nil {
			t.Fatalf("no error for\n%s", yml)
		}
		if strings.Contains(err.Error(), pw) || strings.Contains(err.Error(), pw[:8]) {
			t.Errorf("the error prints the secret:\n%v", err)
		}
		if !strings.Contains(err.Error(), "quote") {
			t.Errorf("the error does not say to quote a value starting with '*':\n%v", err)
		}
	}
	// A mistyped alias of an ordinary anchor is still named, at its line.
	_, err := Parse("c.yaml", []byte("x-timeouts: &slow 120s\n"+base+"retry: {max_wait: *sloww}\n"), review38cNoEnv)
	if err == nil || !strings.Contains(err.Error(), "c.yaml:6: ") || !strings.Contains(err.Error(), `"sloww"`) {
		t.Errorf("a mistyped alias is not named at its line:\n%v", err)
	}
}

// An operator relies on a key written once with an anchor (&k) never being
// printed, even when an alias (*k) reuses it where it does not belong: the
// anchored value is the key's, whatever setting the alias feeds.
func TestAnchoredKeyAliasedIntoAnotherSettingIsNotEchoed_review38c(t *testing.T) {
	const key = "sk-anchored-Qw3rTy7UiOp1AsDf"
	yml := "providers:\n" +
		"  - {name: p, dialect: openai, base_url: \"https://x.test/v1\", api_key: &k " + key + "}\n" +
		"  - {name: q, dialect: openai, base_url: \"https://y.test/v1\", api_key: *k, timeout: *k}\n" +
		"targets:\n  - {name: t, model: m, providers: [p, q]}\n" +
		"routes:\n  - {name: *k, targets: [t]}\n"
	_, err := Parse("c.yaml", []byte(yml), review38cNoEnv)
	if err == nil {
		t.Fatal("no error")
	}
	if strings.Contains(err.Error(), key) || strings.Contains(err.Error(), "anchored-") {
		t.Errorf("the error prints the anchored key:\n%v", err)
	}
	if !strings.Contains(err.Error(), "c.yaml:3: provider timeout: bad duration") {
		t.Errorf("the bad duration is not reported at its line:\n%v", err)
	}
}

// An operator who pastes the key itself between "${" and "}" (a template's
// "${MISTRAL_API_KEY}" with the name replaced by the key) relies on the
// error not printing it: a Mistral or Azure key is letters and digits, a
// valid variable name, and "environment variable %q is not set" quoted it.
func TestKeyPastedAsVariableNameIsNotEchoed_review38c(t *testing.T) {
	for _, key := range []string{"Xk9fQ2LmZp7RtY4wVb8NcJ3hGd6sKa1E", "a3f9c2e18b7d4f60a1e2b3c4d5e6f708"} {
		yml := "providers:\n  - {name: p, dialect: openai, base_url: \"https://x.test/v1\", api_key: \"${" + key + "}\"}\n" +
			"targets:\n  - {name: t, model: m, providers: [p]}\n"
		_, err := Parse("c.yaml", []byte(yml), review38cNoEnv)
		if err == nil {
			t.Fatal("no error")
		}
		if strings.Contains(err.Error(), key[:8]) {
			t.Errorf("the error prints the key pasted as a variable name:\n%v", err)
		}
		if !strings.Contains(err.Error(), "c.yaml:2: provider api_key: environment variable") {
			t.Errorf("the error does not say an environment variable is unset at line 2:\n%v", err)
		}
	}
	// An ordinary name is still named.
	_, err := Parse("c.yaml", []byte(strings.Replace(base, `base_url: "https://x.test/v1"`,
		`base_url: "https://x.test/v1", api_key: "${OPENAI_API_KEY}"`, 1)), review38cNoEnv)
	if err == nil || !strings.Contains(err.Error(), `environment variable "OPENAI_API_KEY" is not set`) {
		t.Errorf("an unset OPENAI_API_KEY is not named:\n%v", err)
	}
}

// An operator relies on file:line pointing at the offending line. A NUL
// byte or a byte that is not UTF-8 (a key pasted from a binary file, a
// Latin-1 editor) was reported at line 1 wherever it was.
func TestBadBytesAreReportedAtTheirLine_review38c(t *testing.T) {
	for _, c := range []struct{ name, bad, msg string }{
		{"NUL", "\x00", "control character"},
		{"Latin-1", "caf\xe9", "UTF-8"},
		{"DEL", "\x7f", "control character"},
		{"truncated", "\xe2\x82", "UTF-8"},
	} {
		yml := base + "routes:\n  - {name: r, targets: [t]}\n  - {name: \"r2" + c.bad + "\", targets: [t]}\n"
		_, err := Parse("c.yaml", []byte(yml), review38cNoEnv)
		if err == nil {
			t.Fatalf("%s: no error", c.name)
		}
		if !strings.HasPrefix(err.Error(), "c.yaml:7: ") || !strings.Contains(err.Error(), c.msg) {
			t.Errorf("%s: got %q, want it at line 7 (the route's), saying %q", c.name, err, c.msg)
		}
	}
}

// An operator relies on a mistaken path (a log file, /dev/zero, a disk
// image) being refused with a message, not read whole into the memory of
// the process serving traffic (a reload reads it too): a 16 MiB file took
// 1.1 GB and 5 s to parse, /dev/zero never ended.
func TestLoadRefusesAFileLargerThanTheCap_review38c(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "detour.yaml")
	big := bytes.Repeat([]byte("# padding\n"), MaxFileBytes/10+1)
	if err := os.WriteFile(path, append([]byte(base), big...), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Load(path)
	var es Errors
	if !errors.As(err, &es) || !strings.Contains(err.Error(), path+": ") || !strings.Contains(err.Error(), "MiB") {
		t.Fatalf("a file past %d bytes: got %v, want a file: message naming the cap", MaxFileBytes, err)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		if _, err := Load("/dev/zero"); err == nil || !strings.Contains(err.Error(), "MiB") {
			t.Errorf("/dev/zero: got %v, want the cap's message", err)
		}
	}
	// A file just under the cap loads.
	ok := append([]byte(base), bytes.Repeat([]byte("#"), MaxFileBytes-len(base)-1)...)
	ok = append(ok, '\n')
	if err := os.WriteFile(path, ok, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(path); err != nil {
		t.Errorf("a file of exactly %d bytes: %v", len(ok), err)
	}
}

// An operator who indents with a tab relies on being told so: yaml's own
// words ("found character that cannot start any token") do not say what
// the character is.
func TestTabIndentationIsNamed_review38c(t *testing.T) {
	yml := "providers:\n\t- {name: p, dialect: openai, base_url: \"https://x.test/v1\"}\ntargets:\n  - {name: t, model: m, providers: [p]}\n"
	_, err := Parse("c.yaml", []byte(yml), review38cNoEnv)
	if err == nil || !strings.HasPrefix(err.Error(), "c.yaml:2: ") || !strings.Contains(err.Error(), "tab") {
		t.Errorf("got %v, want line 2 naming the tab", err)
	}
}
