package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// detour check refuses an embeddings route whose targets declare different
// dimensions, at the route's line (docs/config.md, targets: dimensions).
func TestCheckRefusesMixedDimensions(t *testing.T) {
	path := filepath.Join(t.TempDir(), "vec.yaml")
	os.WriteFile(path, []byte(`providers:
  - {name: o, dialect: openai, base_url: http://o}
  - {name: g, dialect: gemini, base_url: http://g}
targets:
  - {name: small, model: text-embedding-3-small, providers: [o], dimensions: 1536}
  - {name: gem, model: gemini-embedding-001, providers: [g], dimensions: 3072}
routes:
  - {name: vectors, targets: [small, gem]}
`), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1: %s", code, out.String())
	}
	if !strings.HasPrefix(errb.String(), path+":8:") || !strings.Contains(errb.String(), "different dimensions (small 1536, gem 3072)") {
		t.Errorf("error = %q, want %s:8: naming both sizes", errb.String(), path)
	}
}
