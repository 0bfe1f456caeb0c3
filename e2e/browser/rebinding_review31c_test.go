package browser

import (
	"context"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
)

// A real browser, on a page of rebind.attacker.example whose name now
// resolves to 127.0.0.1 (DNS rebinding), reads the console's JSON from the
// shipped compose stack's replica (deploy/detour.yaml, published on
// 127.0.0.1 only; inside the container the connection arrives on a
// non-loopback address, so the Host guard is off: no allowed_hosts).
// docs/security.md lists DNS rebinding from a page in the operator's
// browser among the attacks the front refuses.
func TestRebindingPageCannotReadTheComposeConsole(t *testing.T) {
	var ip string
	if addrs, err := net.InterfaceAddrs(); err == nil {
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
				ip = n.IP.String()
				break
			}
		}
	}
	if ip == "" {
		t.Skip("no non-loopback IPv4 address on this machine")
	}
	raw, err := os.ReadFile(filepath.Join("..", "..", "deploy", "detour.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(l, "state:") { // redis://redis: the compose network's host
			kept = append(kept, l)
		}
	}
	cfg, err := config.Parse("detour.yaml", []byte(strings.Join(kept, "\n")), func(string) (string, bool) { return "", false })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0")) // the container's own address
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln, time.Second); close(done) }()
	t.Cleanup(func() { cancel(); <-done; a.Close(context.Background()) })
	// docker-proxy: 127.0.0.1:PORT on the host relays to the container.
	pub, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { pub.Close() })
	go func() {
		for {
			c, err := pub.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					return
				}
				defer u.Close()
				go io.Copy(u, c)
				io.Copy(c, u)
			}()
		}
	}()
	port := strings.Split(pub.Addr().String(), ":")[1]

	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(chromiumPath(t)),
		chromedp.Flag("disable-gpu", true),
		// The attacker's DNS now answers 127.0.0.1 for its own name.
		chromedp.Flag("host-resolver-rules", "MAP rebind.attacker.example 127.0.0.1, MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"),
	)
	if os.Geteuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancelB := chromedp.NewContext(actx)
	t.Cleanup(func() { cancelB(); cancelA() })
	rctx, cancelR := context.WithTimeout(bctx, 60*time.Second)
	defer cancelR()
	// The attacker's page (its origin now reaches the gateway); its script
	// fetches the console's JSON, same-origin.
	if err := chromedp.Do(rctx, chromedp.Navigate("http://rebind.attacker.example:"+port+"/attacker-page")); err != nil {
		t.Fatal(err)
	}
	leaked, _ := chromedp.Run(rctx, chromedp.Evaluate[string](`fetch('/ui/api/health').then(r => r.ok ? r.text() : '').catch(() => '')`,
		chromedp.EvalAwaitPromise))
	if leaked != "" {
		t.Errorf("a page of rebind.attacker.example read the console: %.160s", leaked)
	}
}
