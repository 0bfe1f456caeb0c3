package main

import (
	"bytes"
	"fmt"
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

// An operator who opens the listener beyond loopback without client keys
// lets anyone who reaches the port spend the providers' keys; without
// allowed_hosts, a DNS-rebinding page can drive it too (docs/security.md).
// `detour check` says so, and says nothing on loopback.
func TestCheckWarnsOfAnOpenListener(t *testing.T) {
	const rest = `providers: [{name: p, dialect: openai, base_url: "https://x.test"}]
targets: [{name: t1, model: m, providers: [p]}]
`
	const spend = "warning: listen %s reaches beyond this machine and no client_keys are set"
	const hosts = "warning: listen %s reaches beyond this machine and no allowed_hosts are set"
	for _, c := range []struct {
		head        string
		listen      string
		spend, host bool
	}{
		{"", "127.0.0.1:8080", false, false}, // the default
		{`listen: "localhost:9000"` + "\n", "localhost:9000", false, false},
		{`listen: "[::1]:9000"` + "\n", "[::1]:9000", false, false},
		{`listen: "0.0.0.0:8080"` + "\n", "0.0.0.0:8080", true, true},
		{`listen: ":8080"` + "\n", ":8080", true, true},
		{`listen: "[::]:8080"` + "\n", "[::]:8080", true, true},
		{`listen: "10.1.2.3:8080"` + "\n", "10.1.2.3:8080", true, true},
		{`listen: "gw.internal:8080"` + "\n", "gw.internal:8080", true, true},
		{`listen: "0.0.0.0:8080"` + "\nallowed_hosts: [gw.internal]\n", "0.0.0.0:8080", true, false},
		{`listen: "0.0.0.0:8080"` + "\nadmin_keys: [\"admin-secret-Qx81\"]\nclient_keys: [{name: a, key: \"client-secret-Zr55\"}]\n", "0.0.0.0:8080", false, true},
	} {
		p := filepath.Join(t.TempDir(), "detour.yaml")
		if err := os.WriteFile(p, []byte(c.head+rest), 0o644); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		if code := run([]string{"check", "-c", p}, nil, &out, &errb); code != 0 {
			t.Fatalf("%q: exit %d: %s", c.head, code, errb.String())
		}
		s := out.String()
		if got := strings.Contains(s, fmt.Sprintf(spend, c.listen)); got != c.spend {
			t.Errorf("%q: client keys warning %v, want %v:\n%s", c.head, got, c.spend, s)
		}
		if got := strings.Contains(s, fmt.Sprintf(hosts, c.listen)); got != c.host {
			t.Errorf("%q: allowed_hosts warning %v, want %v:\n%s", c.head, got, c.host, s)
		}
		if strings.Contains(s, "secret") {
			t.Errorf("a key reached the output:\n%s", s)
		}
	}
}

// A valid file that cannot work as meant is still ok, with a warning
// (operator review 48): a classify rule naming a provider the file does
// not configure matches nothing (a misspelt name passed in silence), and
// a hosted API's provider with an empty key (its environment variable not
// set) answers every request 401 and pages the operator.
func TestCheckWarnsOfRulesAndKeysThatCannotWork(t *testing.T) {
	t.Setenv("UNSET_KEY_FOR_TEST", "")
	p := filepath.Join(t.TempDir(), "detour.yaml")
	yaml := `providers:
  - {name: oa, dialect: openai, base_url: "https://api.openai.com/v1", api_key: "${UNSET_KEY_FOR_TEST:-}"}
  - {name: local, dialect: openai, base_url: "http://127.0.0.1:8000/v1"}
targets: [{name: t, model: m, providers: [oa, local]}]
routes: [{name: r, targets: [t]}]
classify:
  rules:
    - {provider: opnai, status: 400, class: quota}
    - {provider: oa, status: 400, class: quota}
`
	if err := os.WriteFile(p, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", p}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	// Each warning says where its subject is written, as an error does.
	for _, want := range []string{
		"ok (2 providers, 1 target, 1 route, 2 classify rules)",
		"warning: " + p + `:8: classify.rules[1] names provider "opnai", which the file does not configure (providers: oa, local): it matches nothing until one is`,
		"warning: " + p + ":2: provider oa has no api_key, and api.openai.com answers every request without one with 401",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "classify.rules[2]") || strings.Contains(s, "provider local has no api_key") {
		t.Errorf("a warning for a rule or a provider that works:\n%s", s)
	}
}
