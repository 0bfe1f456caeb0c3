package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestCheckPrintsClientKeys(t *testing.T) {
	t.Setenv("TEAM_A_KEY", "team-a-Vq93Lx")
	p := filepath.Join(t.TempDir(), "detour.yaml")
	yaml := `client_keys:
  - {name: team-a, key: "${TEAM_A_KEY}", routes: [deep], rate: {requests_per_minute: 60}, budget: {usd_per_day: 5}}
  - {name: ci, key_sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", max_concurrent: 3}
providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets:
  - {name: t1, model: m, providers: [p], price: {input: 1, output: 2}}
  - {name: t2, model: m, providers: [p]}
routes: [{name: deep, targets: [t1, t2]}]
`
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", p}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"client keys (limits counted per replica (state: memory)):",
		"  team-a: routes deep; 60 requests/min, $5/day",
		"    warning: targets without a price do not count against its budget: t2",
		"  ci: every route; 3 in progress at once (per replica)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// Client keys without admin_keys leave the operator endpoints open to
	// every client: the check says so.
	if !strings.Contains(s, "warning: no admin_keys: /metrics, /v1/health and the /ui console are open") {
		t.Errorf("output lacks the open operator endpoints warning:\n%s", s)
	}
	if strings.Contains(s, "team-a-Vq93Lx") || strings.Contains(s, "9f86d08") {
		t.Errorf("a key reached the output:\n%s", s)
	}
	// An error in a client key fails the check, naming the line.
	bad := strings.Replace(yaml, "routes: [deep]", "routes: [nope]", 1)
	if err := os.WriteFile(p, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	errb.Reset()
	if code := run([]string{"check", "-c", p}, nil, &out, &errb); code != 1 || !strings.Contains(errb.String(), `:2:`) || !strings.Contains(errb.String(), `unknown route "nope"`) {
		t.Errorf("exit %d: %s", code, errb.String())
	}
}

// With admin_keys set, the check does not warn about the operator endpoints.
func TestCheckQuietWithAdminKeys(t *testing.T) {
	p := filepath.Join(t.TempDir(), "detour.yaml")
	yaml := `client_keys: [ck-Hq72Wd]
admin_keys: [ak-Pz31Nm]
providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets: [{name: t1, model: m, providers: [p]}]
`
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", p}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Contains(out.String(), "admin_keys") {
		t.Errorf("a warning with admin_keys set:\n%s", out.String())
	}
}
