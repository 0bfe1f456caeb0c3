package process

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	coltrace "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// h54Collector is an OTLP/HTTP trace collector on loopback counting spans.
type h54Collector struct {
	*httptest.Server
	mu    sync.Mutex
	spans int
}

func newH54Collector(t *testing.T) *h54Collector {
	c := &h54Collector{}
	c.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var ex coltrace.ExportTraceServiceRequest
		if proto.Unmarshal(b, &ex) == nil {
			c.mu.Lock()
			for _, rs := range ex.ResourceSpans {
				for _, ss := range rs.ScopeSpans {
					c.spans += len(ss.Spans)
				}
			}
			c.mu.Unlock()
		}
		out, _ := proto.Marshal(&coltrace.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(c.Close)
	return c
}

func (c *h54Collector) count() int { c.mu.Lock(); defer c.mu.Unlock(); return c.spans }

// hostile54: a slow alert webhook costs the traces of the last seconds at
// every shutdown. `detour serve` gives App.Close one 5 s context
// (cmd/detour/serve.go); Close spends it first on alerts.Close, which waits
// for a delivery to a webhook that does not answer (its client's timeout is
// 10 s, with retries), and then hands the expired context to the tracer's
// Shutdown (before round 54): the spans the batch processor still held were never exported,
// though the collector is up and healthy. The decision log is kept (its
// Close takes no context); the traces, which docs/tracing.md offers as the
// way to follow a request, are not. OTEL_BSP_SCHEDULE_DELAY (the standard
// OpenTelemetry variable the tracer honours, docs/tracing.md) is raised to
// 30 s so the spans are still queued at the shutdown, as they are for
// any request in the last 5 s at the default.
func TestHostile54SlowWebhookCostsTheTracesAtShutdown(t *testing.T) {
	for _, tc := range []struct {
		name string
		hang bool
	}{{"webhook answers", false}, {"webhook hangs", true}} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "30000")
			col := newH54Collector(t)
			release := make(chan struct{})
			var posts sync.WaitGroup
			hook := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
				if tc.hang {
					select {
					case <-release:
					case <-r.Context().Done():
					}
				}
			}))
			t.Cleanup(func() { close(release); hook.Close(); posts.Wait() })
			quota := fake(t, upstreamtest.Step{Status: 400, Body: creditTooLow})
			backup := fake(t, ok("gpt-4o-mini"))
			g := startGateway(t, "h54", render(`alerts: {webhook: "{hook}/hook", min_interval: 1h}
tracing: {otlp_endpoint: "{col}", service_name: h54}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{quota}", api_key: sk-ant-test}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: deep, targets: [claude, gpt]}
`, map[string]string{"hook": hook.URL, "col": col.URL, "quota": quota.URL, "backup": backup.URL}))
			g.postOK("deep")
			time.Sleep(300 * time.Millisecond) // the page is being delivered
			start := time.Now()
			code := g.stop()
			t.Logf("exit %d after %v; collector has %d spans", code, time.Since(start), col.count())
			if n := col.count(); n < 3 {
				t.Errorf("the collector got %d spans of the request's 3 (request, two attempts): the shutdown did not export them\n%s", n,
					lastLines(g.stderr.String(), 8))
			}
		})
	}
}

func lastLines(s string, n int) string {
	l := strings.Split(strings.TrimSpace(s), "\n")
	if len(l) > n {
		l = l[len(l)-n:]
	}
	return strings.Join(l, "\n")
}

// hostile54: a decision log whose reader stalls — the case sink.go plans
// for ("the output is stalled, e.g. a pipe nobody reads": records are
// dropped and counted, requests go on) — here a FIFO at decisions.path whose
// reader (a log shipper) stopped, or a file on a hung NFS mount. Requests
// are served, as designed. But the writer goroutine is blocked in write(2)
// for good, and:
//   - SIGHUP runs ReopenDecisions before the reload (cmd/detour/serve.go),
//     and Writer.Reopen waits for that goroutine: the reload never happens,
//     nor any later one — a key removed to lock a leaked one out keeps working;
//   - SIGTERM: App.Close calls Writer.Close, which waits for it with no
//     deadline: the process never exits (the 5 s shutdown context is not
//     passed to it).
func TestHostile54StalledDecisionLogBlocksReloadAndShutdown(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "decisions.jsonl")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	up := fake(t, ok("gpt-4o-mini"))
	addr := "127.0.0.1:" + strconv.Itoa(freePort(t))
	cfgPath := filepath.Join(dir, "detour.yaml")
	write := func(routes string) {
		body := "listen: " + addr + "\ndecisions: {path: " + fifo + "}\n" +
			"providers:\n  - {name: openai, dialect: openai, base_url: \"" + up.URL + "\", api_key: sk-test}\n" +
			"targets:\n  - {name: gpt, model: gpt-4o-mini, providers: [openai]}\nroutes:\n" + routes
		if err := os.WriteFile(cfgPath+".tmp", []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.Rename(cfgPath+".tmp", cfgPath); err != nil {
			t.Fatal(err)
		}
	}
	write("  - {name: r, targets: [gpt]}\n")
	var stderr testutil.Buffer
	cmd := exec.Command(detourBin, "serve", "-c", cfgPath, "--grace", "1s")
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
		t.Logf("stderr:\n%s", lastLines(stderr.String(), 12))
	})
	poll(t, 20*time.Second, "serving", func() bool { return strings.Contains(stderr.String(), "detour serving") })
	post := func(model string) int {
		resp, err := client.Post("http://"+addr+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	// 64 KiB of records fill the pipe; a few hundred requests do.
	for i := 0; i < 400; i++ {
		if st := post("r"); st != 200 {
			t.Fatalf("request %d: status %d", i, st)
		}
	}
	time.Sleep(500 * time.Millisecond) // the writer's tick: it is now blocked in write(2)
	if st := post("r"); st != 200 {
		t.Fatalf("a stalled decision log stopped requests: %d", st)
	}

	write("  - {name: r, targets: [gpt]}\n  - {name: r2, targets: [gpt]}\n")
	if err := cmd.Process.Signal(syscall.SIGHUP); err != nil {
		t.Fatal(err)
	}
	reloaded := false
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if post("r2") == 200 {
			reloaded = true
			break
		}
	}
	if !reloaded {
		t.Errorf("SIGHUP did not reload the configuration in 10 s (Reopen waits 2 s at most) (route r2 still unknown): the reload waits behind the stalled decision log")
	}

	cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(15 * time.Second):
		t.Errorf("SIGTERM: the process has not exited 15 s later (--grace 1s, and a 5 s close): it waits for the stalled decision log for ever")
	}
}
