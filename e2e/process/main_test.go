package process

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// detourBin is the gateway binary built by TestMain.
var detourBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "detour-process-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	detourBin = filepath.Join(dir, "detour")
	build := exec.Command("go", "build", "-o", detourBin, "./cmd/detour")
	build.Dir = filepath.Join("..", "..") // the module root
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "process tests: cannot build the detour binary:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// Real bodies from classify/testdata/corpus.
const (
	// openrouter-no-endpoints-found-free.json (404): unavailable.
	noEndpoints = `{"error":{"message":"No endpoints found for x-ai/grok-4-fast:free.","code":404}}`
	// anthropic-credit-balance-too-low.json (400): quota.
	creditTooLow = `{"type":"error","error":{"type":"invalid_request_error","message":"Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."},"request_id":"req_011CbrFTcXhtiMzr3s6EocF7"}`
)

// freePort returns a loopback port that was free a moment ago.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// poll calls cond until it is true or the deadline (a failure guard, not a
// timing assertion) passes; then it fails with what.
func poll(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %v waiting for: %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// ---- fake providers and the webhook ----

// fake starts a scripted provider for the test's lifetime.
func fake(t testing.TB, steps ...upstreamtest.Step) *upstreamtest.Server {
	s := upstreamtest.New(upstreamtest.Steps(steps...))
	t.Cleanup(s.Close)
	return s
}

func ok(model string) upstreamtest.Step {
	return upstreamtest.Step{Body: upstreamtest.ChatJSON(model, "hello")}
}

// goneFleet is the providers several replica tests share: on OpenRouter the
// free model of target grok is gone (its 404 "No endpoints found"); OpenAI
// serves target gpt.
type goneFleet struct{ gone, backup *upstreamtest.Server }

func newGoneFleet(t testing.TB) goneFleet {
	return goneFleet{gone: fake(t, upstreamtest.Step{Status: 404, Body: noEndpoints}), backup: fake(t, ok("gpt-4o-mini"))}
}

// yaml is the fleet's providers and targets, then routes (a routes section).
func (f goneFleet) yaml(routes string) string {
	return render(`providers:
  - {name: openrouter, dialect: openai, base_url: "{gone}", api_key: sk-or-test}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: grok, model: "x-ai/grok-4-fast:free", providers: [openrouter]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
`, map[string]string{"gone": f.gone.URL, "backup": f.backup.URL}) + routes
}

// webhook records the alerts POSTed to it.
type webhook struct {
	URL    string
	mu     sync.Mutex
	bodies []map[string]any
}

func startWebhook(t testing.TB) *webhook {
	w := &webhook{}
	srv := &http.Server{Handler: http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		var m map[string]any
		b, _ := io.ReadAll(r.Body)
		_ = json.Unmarshal(b, &m)
		w.mu.Lock()
		w.bodies = append(w.bodies, m)
		w.mu.Unlock()
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	w.URL = "http://" + ln.Addr().String() + "/hook"
	return w
}

func (w *webhook) alerts() []map[string]any {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]map[string]any(nil), w.bodies...)
}

// ---- gateway processes ----

// gateway is one `detour serve` subprocess.
type gateway struct {
	t         testing.TB
	name      string
	addr, URL string
	cfgPath   string
	decPath   string
	cmd       *exec.Cmd
	stderr    *testutil.Buffer
	exited    chan struct{} // closed when the process has exited
}

// config is the body of a configuration; startGateway prepends listen and
// decisions.path. Each {name} in it is replaced by vars[name].
func render(yaml string, vars map[string]string) string {
	var pairs []string
	for k, v := range vars {
		pairs = append(pairs, "{"+k+"}", v)
	}
	return strings.NewReplacer(pairs...).Replace(yaml)
}

// startGateway writes a configuration (listen and decisions.path first, then
// body) and runs `detour serve -c <file> args...` until it serves. A port
// freePort found free can be bound by someone else before the process binds
// it (a gateway or fake of a test running in parallel did, in CI): a
// process that exits saying its listen address is in use is started again
// on a new port, a few times, as redistest does for its servers.
func startGateway(t testing.TB, name, body string, args ...string) *gateway {
	t.Helper()
	dir := t.TempDir()
	g := &gateway{t: t, name: name, cfgPath: filepath.Join(dir, "detour.yaml"),
		decPath: filepath.Join(dir, "decisions.jsonl")}
	t.Cleanup(func() {
		if g.cmd == nil {
			return
		}
		select {
		case <-g.exited:
		default:
			_ = g.cmd.Process.Kill()
			<-g.exited
		}
		if t.Failed() {
			t.Logf("stderr of gateway %s:\n%s", g.name, g.stderr.String())
		}
	})
	for try := 1; ; try++ {
		g.addr = "127.0.0.1:" + strconv.Itoa(freePort(t))
		g.URL = "http://" + g.addr
		g.stderr, g.exited = &testutil.Buffer{}, make(chan struct{})
		g.writeConfig(body)
		cmd, exited := exec.Command(detourBin, append([]string{"serve", "-c", g.cfgPath}, args...)...), g.exited
		cmd.Stdout, cmd.Stderr = io.Discard, g.stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		g.cmd = cmd
		go func() { _ = cmd.Wait(); close(exited) }()
		if !g.waitServing() {
			return g
		}
		if try == 5 {
			t.Fatalf("gateway %s: its port was taken before it bound it, 5 times:\n%s", name, g.stderr.String())
		}
		t.Logf("gateway %s: %s was taken before it bound it; a new port (try %d)", name, g.addr, try+1)
	}
}

// awaitServing returns once g serves: its own log says it bound its
// listener — freePort's port may have been taken meanwhile by a gateway of
// a test running in parallel, which would answer in its place (it did, in
// CI; this one then exits) — and it answers at all (with admin_listen,
// /v1/health is a 404 here). The line is logged at info: a test's
// configuration must not raise log.level past it.
func (g *gateway) awaitServing() {
	g.t.Helper()
	if g.waitServing() {
		g.t.Fatalf("gateway %s exited before serving (%v):\n%s", g.name, g.cmd.ProcessState, g.stderr.String())
	}
}

// waitServing is awaitServing, except that it returns true when the
// process exited because its listen address was in use.
func (g *gateway) waitServing() (portTaken bool) {
	g.t.Helper()
	deadline := time.Now().Add(30 * time.Second) // a failure guard
	for {
		select {
		case <-g.exited:
			if out := g.stderr.String(); strings.Contains(out, "address already in use") && strings.Contains(out, "addr="+g.addr+" ") {
				return true
			}
			g.t.Fatalf("gateway %s exited before serving (%v):\n%s", g.name, g.cmd.ProcessState, g.stderr.String())
		default:
		}
		if out := g.stderr.String(); strings.Contains(out, "detour serving") && strings.Contains(out, g.addr) {
			if resp, err := http.Get(g.URL + "/v1/health"); err == nil {
				resp.Body.Close()
				return false
			}
		}
		if time.Now().After(deadline) {
			g.t.Fatalf("gateway %s did not serve on %s:\n%s", g.name, g.addr, g.stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// writeConfig replaces the configuration file atomically (write, rename).
func (g *gateway) writeConfig(body string) {
	g.t.Helper()
	text := "listen: " + g.addr + "\ndecisions: {path: " + g.decPath + "}\n" + body
	tmp := g.cfgPath + ".tmp"
	if err := os.WriteFile(tmp, []byte(text), 0o644); err != nil {
		g.t.Fatal(err)
	}
	if err := os.Rename(tmp, g.cfgPath); err != nil {
		g.t.Fatal(err)
	}
}

func (g *gateway) signal(sig syscall.Signal) {
	g.t.Helper()
	if err := g.cmd.Process.Signal(sig); err != nil {
		g.t.Fatal(err)
	}
}

// reply is one HTTP answer.
type reply struct {
	Status int
	Header http.Header
	Body   string
}

var client = &http.Client{Timeout: 20 * time.Second}

// post sends a non-streaming chat request naming model.
func (g *gateway) post(model string) reply {
	g.t.Helper()
	body := `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]}`
	resp, err := client.Post(g.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		g.t.Fatalf("gateway %s: %v", g.name, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

// postOK sends a request and fails unless it answers 200.
func (g *gateway) postOK(model string) reply {
	g.t.Helper()
	r := g.post(model)
	if r.Status != 200 {
		g.t.Fatalf("gateway %s, model %s: status %d: %s", g.name, model, r.Status, r.Body)
	}
	return r
}

// health is GET /v1/health.
func (g *gateway) health() testutil.Health {
	g.t.Helper()
	resp, err := client.Get(g.URL + "/v1/health")
	if err != nil {
		g.t.Fatalf("gateway %s: %v", g.name, err)
	}
	defer resp.Body.Close()
	var h testutil.Health
	if resp.StatusCode != 200 || json.NewDecoder(resp.Body).Decode(&h) != nil {
		g.t.Fatalf("gateway %s: /v1/health answered %d or not JSON", g.name, resp.StatusCode)
	}
	return h
}

// account returns a provider account from /v1/health.
func (g *gateway) account(name string) testutil.HealthAccount {
	g.t.Helper()
	a, ok := g.health().Account(name)
	if !ok {
		g.t.Fatalf("gateway %s: /v1/health lists no account %s", g.name, name)
	}
	return a
}

// endpoint returns target/provider from /v1/health.
func (g *gateway) endpoint(target, provider string) testutil.HealthEndpoint {
	g.t.Helper()
	e, ok := g.health().Endpoint(target, provider)
	if !ok {
		g.t.Fatalf("gateway %s: /v1/health lists no endpoint %s/%s", g.name, target, provider)
	}
	return e
}

// metric sums the samples of a Prometheus counter whose labels include all of labels.
func (g *gateway) metric(name string, labels ...string) float64 {
	g.t.Helper()
	resp, err := client.Get(g.URL + "/metrics")
	if err != nil {
		g.t.Fatalf("gateway %s: %v", g.name, err)
	}
	defer resp.Body.Close()
	var sum float64
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
next:
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(line, l) {
				continue next
			}
		}
		f := strings.Fields(line)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err == nil {
			sum += v
		}
	}
	return sum
}

// decisions reads every complete record in the gateway's decision log.
func (g *gateway) decisions() []decision.Decision {
	g.t.Helper()
	b, err := os.ReadFile(g.decPath)
	if err != nil && !os.IsNotExist(err) {
		g.t.Fatal(err)
	}
	var out []decision.Decision
	for _, line := range strings.Split(string(b), "\n") {
		if !strings.HasSuffix(line, "}") {
			continue // empty, or not yet flushed whole
		}
		var d decision.Decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			g.t.Fatalf("gateway %s: decision log line is not JSON: %v: %s", g.name, err, line)
		}
		out = append(out, d)
	}
	return out
}

// decision waits for the record with id in the decision log (the writer
// flushes every 200ms).
func (g *gateway) decision(id string) decision.Decision {
	g.t.Helper()
	if id == "" {
		g.t.Fatalf("gateway %s: no X-Detour-Decision header", g.name)
	}
	var found *decision.Decision
	poll(g.t, 5*time.Second, "decision "+id+" in "+g.name+"'s decision log", func() bool {
		for _, d := range g.decisions() {
			if d.ID == id {
				found = &d
				return true
			}
		}
		return false
	})
	return *found
}

// attempts lists a record's attempts as "target/provider class action".
func attempts(d decision.Decision) []string {
	var out []string
	for _, a := range d.Attempts {
		c := a.Class
		if c == "" {
			c = "ok"
		}
		out = append(out, a.Target+"/"+a.Provider+" "+c+" "+string(a.Action))
	}
	return out
}

func wantAttempts(t testing.TB, d decision.Decision, want ...string) {
	t.Helper()
	if got := attempts(d); strings.Join(got, "\n") != strings.Join(want, "\n") {
		b, _ := json.Marshal(d)
		t.Fatalf("attempts:\n  got  %q\n  want %q\nrecord: %s", got, want, b)
	}
}

// stop sends SIGTERM and waits for the process to exit; it returns the exit code.
func (g *gateway) stop() int {
	g.t.Helper()
	g.signal(syscall.SIGTERM)
	return g.wait()
}

// wait waits for the process to exit and returns its exit code.
func (g *gateway) wait() int {
	g.t.Helper()
	select {
	case <-g.exited:
	case <-time.After(20 * time.Second):
		g.t.Fatalf("gateway %s did not exit:\n%s", g.name, g.stderr.String())
	}
	return g.cmd.ProcessState.ExitCode()
}

func (g *gateway) running() bool {
	select {
	case <-g.exited:
		return false
	default:
		return true
	}
}

// logLines parses the gateway's stderr as JSON log records (log.format
// json), failing on any other line, and returns those whose msg contains msg.
func (g *gateway) logLines(msg string) []map[string]any {
	g.t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(g.stderr.String()), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			g.t.Fatalf("gateway %s: log.format json, but a stderr line is not JSON: %q", g.name, line)
		}
		if s, _ := m["msg"].(string); strings.Contains(s, msg) {
			out = append(out, m)
		}
	}
	return out
}
