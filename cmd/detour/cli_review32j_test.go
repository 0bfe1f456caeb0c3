package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Review rev32j. shownArg and config's unknownName quote a NAME=value up to
// its '=' when NAME is a "plain name" (config.PlainName: at most 24 bytes,
// at most two digits, any printable ASCII but '"' and '\'), and a bare word
// whole when it is plain. A key made with `openssl rand -base64 16` (the
// usual way to mint a bearer key for a self-hosted vLLM/TGI upstream or a
// Detour client key) is 22 characters and "==": its '=' is read as an
// assignment and the 22 characters before it — the whole key — are printed.
// One made with `openssl rand -base64 18` is 24 characters with no '=' and
// is printed whole whenever it holds at most two digits (about one key in
// four). stderr and the reload log are the container's logs.
const (
	b64Padded  = "vKqLmTzXbRwYpNcJdHf8sA==" // openssl rand -base64 16 shape, one digit
	b64Bare    = "vKqLmT/XbRwYpNcJdHf8sAeQ" // openssl rand -base64 18 shape, one digit
	b64Secret  = "vKqLmTzXbRwYpNcJdHf8sA"   // what must not appear
	b64Secret2 = "vKqLmT/XbRwYpNcJdHf8sAeQ"
)

func TestStrayArgumentNeverQuotesABase64Key_review32j(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "detour.yaml")
	os.WriteFile(path, []byte(good32f), 0o644)
	for _, tc := range []struct{ arg, secret string }{{b64Padded, b64Secret}, {b64Bare, b64Secret2}} {
		for _, cmd := range []string{"check", "serve"} {
			var out, errb bytes.Buffer
			if code := run([]string{cmd, "-c", path, tc.arg}, nil, &out, &errb); code != 2 {
				t.Fatalf("detour %s: exit %d, want 2", cmd, code)
			}
			if strings.Contains(errb.String(), tc.secret) {
				t.Errorf("detour %s prints a stray base64 key:\n%s", cmd, errb.String())
			}
		}
	}
}

func TestCheckNeverQuotesABase64KeyPastedAsAKey_review32j(t *testing.T) {
	for _, tc := range []struct{ key, secret string }{{b64Padded, b64Secret}, {b64Bare, b64Secret2}} {
		file := "providers:\n  - {name: p1, dialect: openai, base_url: \"http://h/v1\", api_key, " + tc.key + "}\n" +
			"targets:\n  - {name: t1, model: m1, providers: [p1]}\n"
		path := filepath.Join(t.TempDir(), "detour.yaml")
		os.WriteFile(path, []byte(file), 0o644)
		var out, errb bytes.Buffer
		if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
			t.Fatalf("exit %d, want 1; stdout:\n%s\nstderr:\n%s", code, out.String(), errb.String())
		}
		if strings.Contains(errb.String(), tc.secret) {
			t.Errorf("the check error shows a base64 key:\n%s", errb.String())
		}
	}
}
