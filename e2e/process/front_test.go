package process

import (
	"io"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// get sends GET url with an optional Authorization and returns the status.
func get(t *testing.T, url, auth string) int {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, url, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// admin_listen moves /metrics and /v1/health to their own listener (the
// main one answers 404 for them), admin_keys guard them there, and a
// reload changes the keys at once while a new admin_listen waits for a
// restart (logged).
func TestAdminListener(t *testing.T) {
	t.Parallel()
	up := fake(t, ok("gpt-4o"))
	adminAddr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	admin := "http://" + adminAddr
	cfg := func(key, addr string) string {
		return render(`
log: {format: json}
admin_listen: {addr}
admin_keys: [{key}]
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
`, map[string]string{"up": up.URL, "addr": addr, "key": key})
	}
	g := startGateway(t, "G", cfg("admin-key-1", adminAddr))
	poll(t, 30*time.Second, "the admin listener to answer", func() bool {
		resp, err := http.Get(admin + "/v1/health")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	g.postOK("gpt")
	for _, path := range []string{"/metrics", "/v1/health", "/ui/"} {
		if s := get(t, g.URL+path, "Bearer admin-key-1"); s != 404 {
			t.Errorf("main listener %s: %d, want 404", path, s)
		}
		// A GET of /v1/health with no credentials at all is a load
		// balancer's check: {"status":"serving"} (operator review 53).
		if want := map[bool]int{true: 200, false: 401}[path == "/v1/health"]; get(t, admin+path, "") != want {
			t.Errorf("admin %s without a key: want %d", path, want)
		}
		if s := get(t, admin+path, "BEARER admin-key-1"); s != 200 {
			t.Errorf("admin %s with the key: %d, want 200", path, s)
		}
	}
	if s := get(t, admin+"/v1/models", "Bearer admin-key-1"); s != 404 {
		t.Errorf("admin listener /v1/models: %d, want 404 (the client API is not served there)", s)
	}

	// Reload: the new key applies at once; a new admin_listen needs a restart.
	g.writeConfig(cfg("admin-key-2", "127.0.0.1:"+strconv.Itoa(freePort(t))))
	g.signal(syscall.SIGHUP)
	poll(t, 30*time.Second, "the new admin key to apply", func() bool { return get(t, admin+"/metrics", "Bearer admin-key-2") == 200 })
	if s := get(t, admin+"/metrics", "Bearer admin-key-1"); s != 401 {
		t.Errorf("the old admin key after the reload: %d, want 401", s)
	}
	if len(g.logLines("needs a restart")) == 0 || !strings.Contains(g.stderr.String(), `"key":"admin_listen"`) {
		t.Errorf("no log line says admin_listen needs a restart:\n%s", g.stderr.String())
	}
	if g.stop() != 0 {
		t.Errorf("exit status not 0:\n%s", g.stderr.String())
	}
	if _, err := http.Get(admin + "/metrics"); err == nil {
		t.Error("the admin listener still answers after the process stopped")
	}
}
