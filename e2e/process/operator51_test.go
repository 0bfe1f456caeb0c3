package process

// Round 51, operator review 51 (an operator new to Detour, setting it up from README.md and
// docs/config.md): each test failed before its fix.

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// op51Config writes a valid configuration whose decisions.path lies in a directory that does not
// exist (a typo in the path, or /var/log/detour not created yet) and returns the file's path and
// the line of the decisions key.
func op51Config(t *testing.T) (cfg string, line int) {
	t.Helper()
	dir := t.TempDir()
	cfg = filepath.Join(dir, "detour.yaml")
	body := "listen: 127.0.0.1:" + strconv.Itoa(freePort(t)) + "\n" +
		"decisions: {path: " + filepath.Join(dir, "no-such-dir", "decisions.jsonl") + "}\n" +
		"providers:\n  - {name: openai, dialect: openai, base_url: http://127.0.0.1:9/v1, api_key: sk-test}\n" +
		"targets:\n  - {name: gpt, model: gpt-4o-mini, providers: [openai]}\n"
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return cfg, 2
}

// docs/config.md: "`detour check -c FILE` parses the file as `serve` would and prints what it will
// run … A bad file exits 1, each error printed as `file:line: message`"; docs/deploy.md: "`detour
// check -c FILE` runs the same parser: check the file first." An operator who checks the file,
// sees "ok", then starts `serve` must not be refused by serve for that same file. Observed:
// `detour check` prints "detour.yaml: ok (…)" and exits 0; `detour serve` then exits 1 with
// `cannot start err="decisions.path: open …/no-such-dir/decisions.jsonl: no such file or directory"`.
func TestOp51CheckPassesADecisionsPathServeCannotOpen(t *testing.T) {
	cfg, line := op51Config(t)
	out, err := exec.Command(detourBin, "check", "-c", cfg).CombinedOutput()
	want := regexp.MustCompile(regexp.QuoteMeta(cfg) + ":" + strconv.Itoa(line) + ":.*decisions")
	// A warning, not an error: the file may be checked on another machine
	// than the one that serves it; check still exits 0.
	if err != nil || !want.Match(out) {
		t.Fatalf("detour check (err %v) did not warn of a decisions.path that serve cannot open at %s:%d; it printed:\n%s",
			err, cfg, line, firstLines(string(out), 3))
	}
}

// docs/config.md, Ground rules: "Every error reads `file:line: message`, pointing at the offending key
// or value". The decisions.path serve cannot open is a value of the file, but serve's error names
// neither the file nor the line (observed: `level=ERROR msg="cannot start"
// err="decisions.path: open /…/no-such-dir/decisions.jsonl: no such file or directory"`).
func TestOp51ServeDecisionsPathErrorSaysFileLine(t *testing.T) {
	cfg, line := op51Config(t)
	cmd := exec.Command(detourBin, "serve", "-c", cfg)
	done := make(chan []byte, 1)
	go func() { out, _ := cmd.CombinedOutput(); done <- out }()
	var out []byte
	select {
	case out = <-done:
	case <-time.After(20 * time.Second): // a failure guard
		_ = cmd.Process.Kill()
		t.Fatal("detour serve with an unopenable decisions.path kept running")
	}
	if !strings.Contains(string(out), cfg+":"+strconv.Itoa(line)+":") {
		t.Fatalf("serve's refusal does not name %s:%d; it printed:\n%s", cfg, line, out)
	}
}

func firstLines(s string, n int) string {
	l := strings.SplitN(s, "\n", n+1)
	if len(l) > n {
		l = l[:n]
	}
	return strings.Join(l, "\n")
}

// docs/config.md (client_keys, max_concurrent): "One more is refused at once with `Retry-After: 1`
// and code `client_concurrency_limit_exceeded`"; README: "requests refused by a client limit
// (`detour_limit_refusals_total{client,limit}`)". Observed on /metrics after a max_concurrent refusal:
//
//	# HELP detour_limit_refusals_total Requests refused by a client key's limit, by client and limit (requests_per_minute|tokens_per_minute|usd_per_day|usd_per_month).
//	detour_limit_refusals_total{client="ci",limit="max_concurrent"} 1
//
// The HELP text, the only place that lists the label's values, leaves out the value the series
// carries, so an operator writing an alert from it never matches limit="max_concurrent".
func TestOp51LimitRefusalsHelpNamesMaxConcurrent(t *testing.T) {
	up := fake(t, upstreamtest.Step{Events: []string{
		`{"id":"c1","object":"chat.completion.chunk","created":1,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"role":"assistant","content":"Hi"},"finish_reason":null}]}`,
	}, Stall: true})
	g := startGateway(t, "op51", render(`client_keys:
  - {name: ci, key: op51-ci-key-0123456789, max_concurrent: 1}
providers:
  - {name: openai, dialect: openai, base_url: "{up}", api_key: sk-op51-upstream-key}
targets:
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
`, map[string]string{"up": up.URL}))
	stream := `{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`
	first := g.chatAs("op51-ci-key-0123456789", stream)
	defer first.Body.Close()
	buf := make([]byte, 64)
	if _, err := first.Body.Read(buf); err != nil { // the stream has begun and holds the key's slot
		t.Fatal(err)
	}
	second := g.chatAs("op51-ci-key-0123456789", stream)
	io.Copy(io.Discard, second.Body)
	second.Body.Close()
	if second.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second request: status %d, want 429", second.StatusCode)
	}
	if v := g.metric("detour_limit_refusals_total", `limit="max_concurrent"`); v != 1 {
		t.Fatalf(`detour_limit_refusals_total{limit="max_concurrent"} = %v, want 1`, v)
	}
	resp, err := client.Get(g.URL + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "# HELP detour_limit_refusals_total ") && !strings.Contains(line, "max_concurrent") {
			t.Fatalf("the HELP text lists the limit label's values without max_concurrent, which the series carries:\n%s", line)
		}
	}
}

// docs/config.md (client_keys): the budget counters "survive a restart too when `decisions.path` is a
// file: at start each budgeted key's spend this UTC month and day … is read back from the log".
// docs/deploy.md ("Rotating the decision log") tells the operator to rotate that log daily by
// moving it away and sending SIGHUP (logrotate `daily`, which cron runs in the morning, not at
// UTC midnight). After such a rotation the month's — and part of the day's — records are in the
// moved file, and a restart reads only the live path: the key gets its budget back. Observed on
// the operator run: team-a had spent $0.0718 today against usd_per_day 0.05 (refused before);
// mv decisions.jsonl decisions.1.jsonl, SIGHUP, restart → the next request was served (200), and
// no "client budgets … restored" line was logged.
func TestOp51RestartAfterDocumentedRotationForgetsTheBudget(t *testing.T) {
	up := fake(t, ok("gpt-4o"))
	g := startGateway(t, "op51b", render(`client_keys:
  - {name: ci, key: op51-budget-key-0123456789, budget: {usd_per_day: 0.01, usd_per_month: 0.01}}
providers:
  - {name: main, dialect: openai, base_url: "{up}", api_key: sk-op51-upstream-key}
targets:
  - {name: big, model: gpt-4o, providers: [main], price: {input: 1000, output: 1000}}
`, map[string]string{"up": up.URL}))
	const key = "op51-budget-key-0123456789"
	// 7 tokens at $1000 per million: $0.007 a request; the second passes the $0.01 cap.
	for i := 0; i < 2; i++ {
		if r := g.postAs(key, "big"); r.Status != 200 {
			t.Fatalf("request %d: %d %s", i+1, r.Status, r.Body)
		}
	}
	if r := g.postAs(key, "big"); r.Status != http.StatusTooManyRequests {
		t.Fatalf("over budget before the restart: %d %s", r.Status, r.Body)
	}
	// Rotate as docs/deploy.md says: move the log away, SIGHUP.
	if err := os.Rename(g.decPath, g.decPath+".1"); err != nil {
		t.Fatal(err)
	}
	g.signal(syscall.SIGHUP)
	poll(t, 10*time.Second, "the reload after the rotation", func() bool {
		return strings.Contains(g.stderr.String(), "config reloaded")
	})
	if code := g.stop(); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	// Restart the same configuration (same listen, same decisions.path).
	g2 := &gateway{t: t, name: "op51b-restarted", addr: g.addr, URL: g.URL, cfgPath: g.cfgPath, decPath: g.decPath,
		stderr: &testutil.Buffer{}, exited: make(chan struct{})}
	g2.cmd = exec.Command(detourBin, "serve", "-c", g2.cfgPath)
	g2.cmd.Stdout, g2.cmd.Stderr = io.Discard, g2.stderr
	if err := g2.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = g2.cmd.Wait(); close(g2.exited) }()
	t.Cleanup(func() {
		select {
		case <-g2.exited:
		default:
			_ = g2.cmd.Process.Kill()
			<-g2.exited
		}
	})
	g2.awaitServing()
	if r := g2.postAs(key, "big"); r.Status != http.StatusTooManyRequests {
		t.Fatalf("after the documented rotation and a restart, the key that spent $0.014 of its $0.01 day and month was served again: %d (stderr:\n%s)",
			r.Status, g2.stderr.String())
	}
}
