package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The reference example of docs/config.md checks clean, and the printout says what each class
// does in each route.
func TestCheckPrintsRoutesAndClasses(t *testing.T) {
	for k, v := range map[string]string{"DETOUR_CLIENT_KEY": "ck", "ANTHROPIC_API_KEY": "sk-ant-hidden",
		"OPENAI_API_KEY": "sk-oai-hidden", "GEMINI_API_KEY": "g-hidden"} {
		t.Setenv(k, v)
	}
	var out, errb bytes.Buffer
	code := run([]string{"check", "-c", "../../internal/config/testdata/spec_verbatim.yaml"}, nil, &out, &errb)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"route deep (ordered)",
		"target claude: model claude-sonnet-4-5 via anthropic",
		"quota ", "provider account for 1h0m0s",
		"unavailable ", "endpoint for 24h0m0s",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("output lacks %q:\n%s", want, s)
		}
	}
	// fallback_on is taken as written: unavailable is not in it, so it stops.
	if line := lineOf(s, "  unavailable "); !strings.Contains(line, " no ") {
		t.Errorf("unavailable line should say no next target: %q", line)
	}
	if line := lineOf(s, "  context_length "); !strings.Contains(line, "no") {
		t.Errorf("context_length is not in this fallback_on: %q", line)
	}
	if strings.Contains(s, "hidden") {
		t.Errorf("check printed a key:\n%s", s)
	}
}

func lineOf(s, prefix string) string {
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, prefix) {
			return l
		}
	}
	return ""
}

func TestCheckReportsFileAndLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "bad.yaml")
	os.WriteFile(path, []byte("providers:\n  - {name: p, dialect: openai, base_url: http://x, colour: red}\ntargets:\n  - {name: t, model: m, providers: [p]}\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 1 {
		t.Fatalf("exit %d, want 1", code)
	}
	if !strings.HasPrefix(errb.String(), path+":2:") || !strings.Contains(errb.String(), "colour") {
		t.Errorf("error = %q, want %s:2: naming the unknown key", errb.String(), path)
	}
}

// check names the state form (never its URLs, which may hold a password).
func TestCheckNamesTheStateForm(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	os.WriteFile(path, []byte("state: {store: redis, sentinel: {master: m, addrs: [\"redis://:pw-hidden@s1:26379\", \"redis://s2:26379\"]}}\n"+
		"providers:\n  - {name: p, dialect: openai, base_url: http://x}\ntargets:\n  - {name: t, model: m, providers: [p]}\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if !strings.Contains(out.String(), `state: redis sentinel, master "m", 2 sentinels`) || strings.Contains(out.String(), "hidden") {
		t.Errorf("output:\n%s", out.String())
	}
}

// check says where the operator endpoints are and who may read them,
// whether spans are exported (never a collector URL's credentials), and a
// route's on_stream_cut: what a reviewer of a config wants confirmed
// (operator review 48b found none of them printed).
func TestCheckNamesOperatorEndpointsTracingAndContinuation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.yaml")
	os.WriteFile(path, []byte("listen: 127.0.0.1:8080\nadmin_listen: 127.0.0.1:9090\nadmin_keys: [op-key-one-secret]\n"+
		"tracing: {otlp_endpoint: \"https://user:pw-hidden@otel.example:4318\", service_name: gw}\n"+
		"providers:\n  - {name: p, dialect: openai, base_url: http://x}\ntargets:\n  - {name: t, model: m, providers: [p]}\n"+
		"routes:\n  - {name: r, targets: [t], on_stream_cut: continue}\n"), 0o644)
	var out, errb bytes.Buffer
	if code := run([]string{"check", "-c", path}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	s := out.String()
	for _, want := range []string{
		"listen: 127.0.0.1:8080; operator endpoints: /metrics, /v1/health, /v1/health/reset, /ui on admin_listen 127.0.0.1:9090, for 1 admin key",
		"tracing: OTLP/HTTP to https://xxxxx@otel.example:4318, service gw",
		"on_stream_cut continue (max_continuations 2)",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("no %q in:\n%s", want, s)
		}
	}
	if strings.Contains(s, "hidden") || strings.Contains(s, "op-key") || strings.Contains(s, "user:") {
		t.Errorf("a secret in:\n%s", s)
	}
}
