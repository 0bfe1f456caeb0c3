package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCheckTracingHidesAUserOnlyToken_r50: check's tracing line shows the
// collector URL through url.URL.Redacted, which masks a password only. A
// token written as the URL's user alone ("https://<token>@host", the
// shape of Uptrace's and Sentry's DSNs) is printed as it is, while the
// line promises "credentials hidden" (docs/config.md: otlp_endpoint "may
// carry credentials, so an error about it never shows the value"), and
// the gateway's own scrubber treats a base URL's user name as a secret
// (internal/app/redact.go rulesFor).
func TestCheckTracingHidesAUserOnlyToken_r50(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	os.WriteFile(path, []byte("listen: 127.0.0.1:8080\n"+
		"tracing: {otlp_endpoint: \"https://tok3nSecretValue42@otel.example:4318\"}\n"+
		"providers:\n  - {name: p, dialect: openai, base_url: http://x}\ntargets:\n  - {name: t, model: m, providers: [p]}\n"+
		"routes:\n  - {name: r, targets: [t]}\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if s := out.String() + errb.String(); strings.Contains(s, "tok3nSecretValue42") {
		t.Errorf("the collector URL's token is printed:\n%s", s)
	}
}
