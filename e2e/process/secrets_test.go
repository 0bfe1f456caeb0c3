package process

import (
	"encoding/json"
	"net"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestServeLeaksNoSecret: a real `detour serve` whose upstream echoes the
// key it was sent, and whose other provider's port is closed: neither the
// client, the decision log, the process's log (json, debug) nor the alert
// webhook sees the key, an 8-byte fragment of it, or a provider's address.
func TestServeLeaksNoSecret(t *testing.T) {
	t.Parallel()
	const key = "opnQ7zXk2WvR9mLp4TsB8yNc" // not key-shaped: only the configured-key rule knows it
	var self string
	echo := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		m, _ := json.Marshal("Incorrect API key provided: " + k + " at " + self + r.Path)
		return upstreamtest.Step{Status: 401, Body: `{"error":{"message":` + string(m) + `,"code":"invalid_api_key"}}`}
	})
	t.Cleanup(echo.Close)
	self = echo.URL
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	gone := ln.Addr().String()
	ln.Close()
	hook := startWebhook(t)
	g := startGateway(t, "G", render(`
log: {format: json, level: debug}
alerts: {webhook: "{hook}"}
providers:
  - {name: echo, dialect: openai, base_url: "{echo}/v1", api_key: `+key+`}
  - {name: gone, dialect: openai, base_url: "http://{gone}/v1", api_key: `+key+`}
targets:
  - {name: e, model: gpt-4o, providers: [echo]}
  - {name: g, model: gpt-4o, providers: [gone]}
`, map[string]string{"echo": echo.URL, "gone": gone, "hook": hook.URL}))

	secretOut := func(where, text string) {
		t.Helper()
		for i := 0; i+8 <= len(key); i++ {
			if strings.Contains(text, key[i:i+8]) {
				t.Errorf("%s carries %q of the key:\n%s", where, key[i:i+8], text)
				return
			}
		}
		for _, p := range []string{strings.TrimPrefix(echo.URL, "http://"), gone} {
			if strings.Contains(text, p) {
				t.Errorf("%s shows %s:\n%s", where, p, text)
			}
		}
	}
	r := g.post("e")
	if r.Status != 401 || !strings.Contains(r.Body, "Incorrect API key provided: [redacted] at [provider echo]") {
		t.Errorf("echo: %d %s", r.Status, r.Body)
	}
	secretOut("client body", r.Body)
	r2 := g.post("g")
	if r2.Status != 502 || !strings.Contains(r2.Body, "connection refused") {
		t.Errorf("gone: %d %s", r2.Status, r2.Body)
	}
	secretOut("client body", r2.Body)
	g.decision(r.Header.Get("X-Detour-Decision"))
	g.decision(r2.Header.Get("X-Detour-Decision"))
	poll(t, 30*time.Second, "the auth alert", func() bool { return len(hook.alerts()) > 0 })
	if code := g.stop(); code != 0 {
		t.Fatalf("exit code %d", code)
	}
	b, _ := os.ReadFile(g.decPath)
	secretOut("decision log", string(b))
	secretOut("process log", g.stderr.String())
	for _, a := range hook.alerts() {
		j, _ := json.Marshal(a)
		secretOut("alert", string(j))
	}
}
