package e2e

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Issue 8: smaller holes an upstream could drive through — a status no HTTP
// server may send, a Retry-After meant to cool an endpoint forever — and
// what a reload leaves behind in /metrics.

// rawStatus is a TCP server that answers every HTTP request with the raw
// status line statusLine ("HTTP/1.1 999 X") and an empty body.
func rawStatus(t *testing.T, statusLine string) *upstreamtest.Server {
	t.Helper()
	addr := rawTCP(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		for {
			req, err := http.ReadRequest(br)
			if err != nil {
				return
			}
			_, _ = io.Copy(io.Discard, req.Body)
			if _, err := io.WriteString(c, statusLine+"\r\nContent-Type: application/json\r\nContent-Length: 0\r\n\r\n"); err != nil {
				return
			}
		}
	})
	// Only URL is used: the configuration points at it.
	return &upstreamtest.Server{Server: &httptest.Server{URL: "http://" + addr}}
}

// rawTCP listens on a loopback port until the test ends and hands each
// connection to serve, on a goroutine of its own: an upstream that speaks
// HTTP as no net/http server would. It returns host:port.
func rawTCP(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
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
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

func TestStatusOutsideHTTPRangeIsAServerError(t *testing.T) {
	for _, line := range []string{"HTTP/1.1 999 X", "HTTP/1.1 600 Beyond", "HTTP/1.1 099 Below", "HTTP/1.1 000 Zero"} {
		t.Run(line, func(t *testing.T) {
			fs := map[string]*upstreamtest.Server{"p": rawStatus(t, line)}
			for name, s := range fakes(t, map[string]upstreamtest.Script{"q": script(ok("model-b", "from b"))}) {
				fs[name] = s
			}
			g := start(t, twoTargets+"  - {name: alone, targets: [a]}\n", fs)

			r := g.post(t, "alone", "")
			r.wantStatus(t, 502)
			if c := r.Header.Get("X-Detour-Class"); c != "server_error" {
				t.Errorf("X-Detour-Class %q", c)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "a/p server_error retry", "a/p server_error stop")
			if a := d.Attempts[0]; a.Evidence != "status:out-of-range" {
				t.Errorf("attempt %+v", a)
			}

			r = g.post(t, "r", "")
			r.wantStatus(t, 200)
			// Its third server error in a row cools a/p: not tried there again.
			wantSteps(t, g.recs.wait(t, 2), "a/p server_error next_target", "b/q ok done")
		})
	}
}

// An upstream's Retry-After cools an endpoint for at most max_cooldown. A
// hint of an hour or more is a spent allowance for the classifier (quota:
// the account cools for the configured account_cooldown, never for the
// hint); absurd hints — 1e10 seconds, Inf, the year 9999 — are such hints,
// not ignored (they overflowed to nothing).
func TestRetryAfterIsCappedAtMaxCooldown(t *testing.T) {
	const maxCooldown, accountCooldown = time.Minute, 2 * time.Minute
	for _, tc := range []struct {
		header, value string
		class         string
		want          time.Duration // how long endpoint a/p cools
	}{
		{"Retry-After", "30", "rate_limited", 30 * time.Second}, // an honest hint is kept
		{"Retry-After", "1800", "rate_limited", maxCooldown},
		{"Retry-After-Ms", "1800000", "rate_limited", maxCooldown},
		{"Retry-After", "1e10", "quota", accountCooldown},
		{"Retry-After", "Inf", "quota", accountCooldown},
		{"Retry-After-Ms", "1e15", "quota", accountCooldown},
		{"Retry-After", "86400000", "quota", accountCooldown},
		{"Retry-After", "Fri, 31 Dec 9999 23:59:59 GMT", "quota", accountCooldown},
	} {
		t.Run(tc.header+": "+tc.value, func(t *testing.T) {
			limited := upstreamtest.Step{Status: 429, Header: map[string]string{tc.header: tc.value},
				Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(limited), "q": script(ok("model-b", "from b"))})
			g := start(t, `
health: {cooldown: 1s, max_cooldown: 1m, account_cooldown: 2m}
retry: {max_wait: 0s}
`+twoTargets, fs)
			before := time.Now()
			g.post(t, "r", "").wantStatus(t, 200)
			wantSteps(t, g.recs.wait(t, 1), "a/p "+tc.class+" next_target", "b/q ok done")
			after := time.Now()
			h := g.health(t)
			until := func(u *time.Time) bool {
				return u != nil && !u.Before(before.Add(tc.want-time.Second)) && !u.After(after.Add(tc.want+time.Second))
			}
			if tc.class == "quota" {
				for _, a := range h.Accounts {
					if a.Name == "p" && (a.State != "cooling" || !until(a.CooldownUntil)) {
						t.Errorf("account p: state %s, cooling until %v; want about now+%v", a.State, a.CooldownUntil, tc.want)
					}
				}
				return
			}
			for _, e := range h.Endpoints {
				if e.Target == "a" && (e.State != "cooling" || !until(e.CooldownUntil)) {
					t.Errorf("endpoint a/p: state %s, cooling until %v; want about now+%v", e.State, e.CooldownUntil, tc.want)
				}
			}
		})
	}
}

// A reload that removes a target and a provider removes their series from
// /metrics; what stays configured keeps its series.
func TestReloadDropsMetricsOfRemovedTargets(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a")), "q": script(ok("model-b", "b"))})
	g := start(t, twoTargets, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	g.recs.wait(t, 1)
	scrape := func() string { return string(g.raw(t, http.MethodGet, "/metrics", "").Body) }
	m := scrape()
	for _, want := range []string{`detour_endpoint_state{provider="q",state="healthy",target="b"} 1`,
		`detour_account_state{provider="q",state="healthy"} 1`, `detour_attempts_total{class="ok",provider="p",target="a"} 1`} {
		if !strings.Contains(m, want) {
			t.Fatalf("before the reload /metrics lacks %s", want)
		}
	}

	var pairs []string
	for name, s := range fs {
		pairs = append(pairs, "{"+name+"}", s.URL)
	}
	without := strings.NewReplacer(pairs...).Replace(`
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r2, targets: [a]}
`)
	if err := g.app.Reload(gatewaytest.Config(t, without)); err != nil {
		t.Fatal(err)
	}
	m = scrape()
	for _, line := range strings.Split(m, "\n") {
		if strings.HasPrefix(line, "detour_") && (strings.Contains(line, `target="b"`) || strings.Contains(line, `provider="q"`) ||
			strings.Contains(line, `route="r"`)) {
			t.Errorf("after the reload /metrics still has %s", line)
		}
	}
	for _, want := range []string{`detour_endpoint_state{provider="p",state="healthy",target="a"} 1`,
		`detour_attempts_total{class="ok",provider="p",target="a"} 1`} {
		if !strings.Contains(m, want) {
			t.Errorf("after the reload /metrics lacks %s", want)
		}
	}
}
