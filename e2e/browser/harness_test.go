package browser

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// chromiumPath finds the browser: $DETOUR_CHROMIUM, else the usual names.
// Without one the test is skipped, unless CI is set: there it must run.
func chromiumPath(t *testing.T) string {
	t.Helper()
	if p := os.Getenv("DETOUR_CHROMIUM"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if ci := os.Getenv("CI"); ci != "" && ci != "false" && ci != "0" {
		t.Fatal("CI is set but no chromium binary was found: the console's browser tests must run in CI (apt-get install chromium, or set DETOUR_CHROMIUM)")
	}
	t.Skip("no chromium binary found: the console's browser tests are skipped (apt-get install chromium, or set DETOUR_CHROMIUM; with CI=true a missing browser fails)")
	return ""
}

// browser is one headless Chromium tab; errs collects what the page wrote
// to the console as an error (a CSP or Trusted Types violation, an
// exception, a failed load).
type browser struct {
	ctx  context.Context
	mu   sync.Mutex
	errs []string
}

func newBrowser(t *testing.T) *browser {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-domain-reliability", true),
		// Nothing but loopback: no name resolves.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
		chromedp.WindowSize(1280, 900),
	)
	if os.Geteuid() == 0 { // CI containers run as root, where Chromium's sandbox cannot start
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelA() })
	b := &browser{ctx: ctx}
	if err := chromedp.Do(ctx); err != nil { // starts the browser; no timeout on this first call
		t.Fatalf("chromium did not start: %v", err)
	}
	msgs := chromedp.Console(ctx)
	go func() {
		for m, err := range msgs {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleException {
				b.mu.Lock()
				b.errs = append(b.errs, m.String())
				b.mu.Unlock()
			}
		}
	}()
	return b
}

// consoleErrors returns what the pages reported as errors so far.
func (b *browser) consoleErrors() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errs...)
}

// do runs steps with a deadline (a failure guard for a loaded machine).
func (b *browser) do(t *testing.T, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("browser: %v", err)
	}
}

// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, b *browser, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

// waitFor waits up to d for a JavaScript expression to hold; it reports
// whether it did.
func (b *browser) waitFor(expr string, d time.Duration) bool {
	// A poll that a navigation interrupts ends with an error at once (its
	// page's execution context is gone), not at d: it is polled again on
	// the new page until d has passed (a link clicked on another page
	// failed its 5 s wait at once on a loaded machine).
	deadline := time.Now().Add(d)
	for {
		left := time.Until(deadline)
		if left <= 0 {
			return false
		}
		ctx, cancel := context.WithTimeout(b.ctx, left+5*time.Second)
		_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](expr,
			chromedp.WithPollingTimeout(left), chromedp.WithPollingInterval(25*time.Millisecond)))
		cancel()
		if err == nil {
			return true
		}
		if b.ctx.Err() != nil {
			return false
		}
		time.Sleep(25 * time.Millisecond)
	}
}

func (b *browser) mustWait(t *testing.T, what, expr string) {
	t.Helper()
	if !b.waitFor(expr, 20*time.Second) {
		t.Fatalf("%s: %s never held", what, expr)
	}
}

// shots is where screenshots go.
func shots(t *testing.T) string {
	dir := os.Getenv("DETOUR_SCREENSHOTS")
	if dir == "" {
		dir = filepath.Join(os.TempDir(), "detour-console-screenshots")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// screenshot saves the whole page as name.png.
func (b *browser) screenshot(t *testing.T, name string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(b.ctx, 30*time.Second)
	defer cancel()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot: %v", err)
	}
	p := filepath.Join(shots(t), name+".png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
}

// gateway is a Detour serving a configuration file on loopback.
type gateway struct {
	URL  string
	app  *app.App
	path string // the configuration file
	recs *gatewaytest.Records
	yaml string
}

// startGateway writes yaml (each {name} replaced by that fake's URL) to a
// file and serves it.
func startGateway(t *testing.T, yaml string, fakes map[string]*upstreamtest.Server) *gateway {
	t.Helper()
	for name, s := range fakes {
		yaml = strings.ReplaceAll(yaml, "{"+name+"}", s.URL)
	}
	g := &gateway{path: filepath.Join(t.TempDir(), "detour.yaml"), recs: gatewaytest.NewRecords(), yaml: yaml}
	if err := os.WriteFile(g.path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(g.path)
	if err != nil {
		t.Fatal(err)
	}
	g.URL, g.app = gatewaytest.Start(t, cfg, app.Options{Decisions: g.recs, Backoff: func() time.Duration { return time.Millisecond }})
	return g
}

// reload rewrites the configuration file and reloads it, as SIGHUP does.
func (g *gateway) reload(t *testing.T, yaml string) {
	t.Helper()
	if err := os.WriteFile(g.path, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(g.path)
	if err != nil {
		t.Fatalf("the configuration with the pasted rule does not load: %v\n%s", err, yaml)
	}
	if err := g.app.Reload(cfg); err != nil {
		t.Fatal(err)
	}
	g.yaml = yaml
}

// chat sends a chat request for model and returns the decision id.
func (g *gateway) chat(t *testing.T, model string, headers ...string) (id string, status int) {
	t.Helper()
	body := `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions", bytes.NewReader([]byte(body)))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	return resp.Header.Get("X-Detour-Decision"), resp.StatusCode
}

func jsonString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func fetchText(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}
