package process

import (
	"bufio"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestSIGTERMDrainsStream: SIGTERM during a slow stream stops accepting new
// connections, lets the stream finish with [DONE], writes its decision
// record and exits 0. The stream runs 5s past the SIGTERM, so the process
// is still draining it when the test sees new connections refused, even on
// a loaded machine.
func TestSIGTERMDrainsStream(t *testing.T) {
	t.Parallel()
	slow := fake(t, upstreamtest.Step{
		Events:     upstreamtest.ChatStream("gpt-4o", "one ", "two ", "three ", "four ", "five ", "six ", "seven ", "eight"),
		EventDelay: 500 * time.Millisecond,
	})
	g := startGateway(t, "G", render(`
providers:
  - {name: openai, dialect: openai, base_url: "{slow}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
`, map[string]string{"slow": slow.URL}), "--grace", "15s")

	resp, err := client.Post(g.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	id := resp.Header.Get("X-Detour-Decision")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("stream: status %d, decision %q", resp.StatusCode, id)
	}
	rd := bufio.NewReader(resp.Body)
	var got strings.Builder
	for !strings.Contains(got.String(), "one ") { // the stream has begun
		line, err := rd.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			t.Fatalf("stream ended before its first content: %v: %s", err, got.String())
		}
	}

	g.signal(syscall.SIGTERM)
	poll(t, 30*time.Second, "a new connection to be refused after SIGTERM", func() bool {
		c, err := net.DialTimeout("tcp", g.addr, time.Second)
		if err != nil {
			return true
		}
		c.Close()
		return false
	})
	if !g.running() {
		t.Fatalf("the process exited before the stream in flight finished:\n%s", g.stderr.String())
	}

	for {
		line, err := rd.ReadString('\n')
		got.WriteString(line)
		if err != nil {
			break
		}
	}
	body := got.String()
	if !strings.Contains(body, "data: [DONE]") || !strings.Contains(body, "eight") || strings.Contains(body, "event: error") {
		t.Fatalf("the stream did not complete after SIGTERM:\n%s", body)
	}
	if code := g.wait(); code != 0 {
		t.Fatalf("exit code %d after SIGTERM, want 0:\n%s", code, g.stderr.String())
	}
	var found bool
	for _, d := range g.decisions() { // the process has exited: the log is flushed
		if d.ID == id {
			found = true
			if d.Outcome != "ok" || !d.Stream || len(d.Attempts) != 1 {
				t.Errorf("record of the drained stream: %+v", d)
			}
		}
	}
	if !found {
		t.Fatalf("decision log has no record %s after SIGTERM", id)
	}
}

// TestSIGHUPReload: SIGHUP serves a rewritten configuration (a new route
// answers); a broken one is refused with file:line on stderr and the running
// routes keep working.
func TestSIGHUPReload(t *testing.T) {
	t.Parallel()
	up := fake(t, ok("gpt-4o"))
	vars := map[string]string{"up": up.URL}
	v1 := render(`
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: first, targets: [gpt]}
`, vars)
	g := startGateway(t, "G", v1)
	g.postOK("first")
	if r := g.post("second"); r.Status != 404 {
		t.Fatalf("route second before the reload: %d %s", r.Status, r.Body)
	}

	g.writeConfig(v1 + "  - {name: second, targets: [gpt]}\n")
	g.signal(syscall.SIGHUP)
	poll(t, 30*time.Second, "route second to answer after SIGHUP", func() bool { return g.post("second").Status == 200 })
	if r := g.postOK("second"); r.Header.Get("X-Detour-Route") != "second" {
		t.Errorf("X-Detour-Route %q", r.Header.Get("X-Detour-Route"))
	}

	g.writeConfig(v1 + "  - {name: second, targets: [gpt]}\n  - {name: third, targets: [nowhere]}\n")
	g.signal(syscall.SIGHUP)
	poll(t, 30*time.Second, "the failed reload to be logged", func() bool {
		return strings.Contains(g.stderr.String(), "config reload failed")
	})
	if !regexp.MustCompile(`detour\.yaml:\d+: `).MatchString(g.stderr.String()) {
		t.Fatalf("stderr has no file:line: message for the broken config:\n%s", g.stderr.String())
	}
	g.postOK("first")
	g.postOK("second")
	if r := g.post("third"); r.Status != 404 {
		t.Fatalf("route third of the broken config answered %d", r.Status)
	}
	if !g.running() {
		t.Fatal("the process exited on a broken config")
	}
}

// TestSIGHUPReopensARotatedDecisionLog: a decision log moved away (logrotate's
// create mode) is opened anew at SIGHUP: records before it are in the moved
// file, later ones in a new file at the path (operator review 50: every
// record went on into the moved file).
func TestSIGHUPReopensARotatedDecisionLog(t *testing.T) {
	t.Parallel()
	up := fake(t, ok("gpt-4o"))
	dec := filepath.Join(t.TempDir(), "decisions.jsonl")
	g := startOn(t, "R", dec, "always", render(`
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: first, targets: [gpt]}
`, map[string]string{"up": up.URL}))
	before := g.postOK("first").Header.Get("X-Detour-Decision")
	if err := os.Rename(dec, dec+".1"); err != nil {
		t.Fatal(err)
	}
	g.signal(syscall.SIGHUP)
	poll(t, 30*time.Second, "a new decision log after SIGHUP", func() bool { _, err := os.Stat(dec); return err == nil })
	after := g.postOK("first").Header.Get("X-Detour-Decision")
	old, _ := os.ReadFile(dec + ".1")
	cur, _ := os.ReadFile(dec)
	if !strings.Contains(string(old), before) || strings.Contains(string(old), after) || !strings.Contains(string(cur), after) {
		t.Errorf("moved file %q, new file %q (before %s, after %s)", old, cur, before, after)
	}
}
