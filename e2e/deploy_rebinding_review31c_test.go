package e2e

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/config"
)

// nonLoopbackIPv4 is an address of this machine that is not loopback, or "".
func nonLoopbackIPv4(t *testing.T) string {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ""
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() {
			return n.IP.String()
		}
	}
	return ""
}

// forward accepts on 127.0.0.1 and relays every connection to to, as
// docker-proxy does for `ports: ["127.0.0.1:8081:8080"]`: the gateway sees
// the connection arrive on the container's own (non-loopback) address.
func forward(t *testing.T, to string) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", to)
				if err != nil {
					return
				}
				defer u.Close()
				go io.Copy(u, c)
				io.Copy(c, u)
			}()
		}
	}()
	return ln.Addr().String()
}

// The shipped compose stack (deploy/compose.yaml + deploy/detour.yaml)
// publishes each replica on 127.0.0.1 only, i.e. on the operator's own
// loopback, and docs/security.md counts "a web page in the operator's
// browser ... DNS rebinding" among the attacks the front refuses. But
// inside the container the connection arrives on the container's own
// address, not loopback, and deploy/detour.yaml sets no allowed_hosts, so
// the Host guard is off: a page at rebind.attacker.example, re-resolved to
// 127.0.0.1, reads the console's JSON (every request's record, upstream
// messages, health) and /metrics, same-origin, from any site the operator
// visits. The compose file's replica is reproduced here: deploy/detour.yaml
// as shipped (its Redis state dropped: there is no redis host here),
// listening on a non-loopback address behind a loopback relay.
func TestComposeStackRefusesDNSRebinding(t *testing.T) {
	ip := nonLoopbackIPv4(t)
	if ip == "" {
		t.Skip("no non-loopback IPv4 address on this machine")
	}
	raw := string(readDeploy(t, "detour.yaml"))
	var kept []string
	for _, l := range strings.Split(raw, "\n") {
		if strings.HasPrefix(l, "state:") { // redis://redis: the compose network's host
			continue
		}
		kept = append(kept, l)
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-test-openai-0123456789", "ANTHROPIC_API_KEY": "sk-ant-test-0123456789"}
	cfg, err := config.Parse("detour.yaml", []byte(strings.Join(kept, "\n")), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(cfg, app.Options{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(ip, "0")) // the container's eth0
	if err != nil {
		t.Skipf("cannot listen on %s: %v", ip, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { a.Serve(ctx, ln, time.Second); close(done) }()
	t.Cleanup(func() { cancel(); <-done; a.Close(context.Background()) })
	published := forward(t, ln.Addr().String()) // 127.0.0.1:8081 on the host

	for _, path := range []string{"/ui/api/decisions", "/ui/api/health", "/ui/api/unknowns", "/v1/health", "/metrics"} {
		// What the attacker's script sends once its name resolves to
		// 127.0.0.1: a same-origin GET (no Origin header on a same-origin GET).
		req, _ := http.NewRequest(http.MethodGet, "http://"+published+path, nil)
		req.Host = "rebind.attacker.example:" + strings.Split(published, ":")[1]
		req.Header.Set("Sec-Fetch-Site", "same-origin")
		req.Header.Set("Sec-Fetch-Mode", "cors")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden {
			t.Errorf("GET %s with Host %s through the published loopback port: %d, want 403 (DNS rebinding): %.100s",
				path, req.Host, resp.StatusCode, body)
		}
	}
}
