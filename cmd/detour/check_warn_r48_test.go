package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestR48NoKeyWarningWhenHeadersCarryTheKey: a provider may carry its key
// in headers (Authorization, x-api-key, x-goog-api-key are not reserved:
// config/entities.go reservedHeaders), and the dispatcher sends them
// (dispatch/attempt.go withHeaders). configWarnings still warns that such
// a provider "has no api_key" and will be answered 401 at every request.
func TestR48NoKeyWarningWhenHeadersCarryTheKey(t *testing.T) {
	p := filepath.Join(t.TempDir(), "detour.yaml")
	yaml := `providers:
  - {name: oa, dialect: openai, base_url: "https://api.openai.com/v1", headers: {Authorization: "Bearer sk-test"}}
  - {name: an, dialect: anthropic, base_url: "https://api.anthropic.com", headers: {x-api-key: "sk-ant-test"}}
targets: [{name: t, model: m, providers: [oa, an]}]
routes: [{name: r, targets: [t]}]
`
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", p}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "has no api_key") {
		t.Errorf("warns of a missing key the headers carry:\n%s", out.String())
	}
}
