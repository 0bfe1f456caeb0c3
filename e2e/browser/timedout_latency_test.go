package browser

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestConsoleLatencySaysAnEndpointTimedOut: an endpoint that answered fast
// and then stopped answering (every stream stalls before its first
// content, cut by first_token_timeout) cools for timeouts; its latency is
// still the last good sample (a failure is no sample, docs/behaviour.md,
// "fastest measures again"). The Health page showed that sample alone
// ("40 ms" beside a timing-out endpoint: operator review 57); it says the
// endpoint timed out, and what it last answered in.
func TestConsoleLatencySaysAnEndpointTimedOut(t *testing.T) {
	b := newBrowser(t)
	fakes := map[string]*upstreamtest.Server{
		"alpha": upstreamtest.New(upstreamtest.Steps(
			upstreamtest.Step{Events: upstreamtest.ChatStream("alpha-large", "Hel", "lo")},
			upstreamtest.Step{Events: upstreamtest.ChatStream("alpha-large", "Hel", "lo")[:1], Stall: true},
		)),
		"beta": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("beta-large", "Hel", "lo")})),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
providers:
  - {name: alpha, dialect: openai, base_url: "{alpha}", api_key: sk-a, first_token_timeout: 300ms}
  - {name: beta, dialect: openai, base_url: "{beta}", api_key: sk-b}
targets:
  - {name: a, model: alpha-large, providers: [alpha]}
  - {name: b, model: beta-large, providers: [beta]}
routes:
  - {name: live, strategy: ordered, targets: [a, b]}
`, fakes)
	for i := range 2 {
		resp, err := http.Post(g.URL+"/v1/chat/completions", "application/json",
			strings.NewReader(`{"model":"live","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if got := resp.Header.Get("X-Detour-Target"); got != []string{"a", "b"}[i] {
			t.Fatalf("request %d served by %q", i+1, got)
		}
	}
	b.do(t, chromedp.EmulateViewport(1400, 900), chromedp.Navigate(g.URL+"/ui/health"))
	row := `[...document.querySelectorAll('#endpoints tbody tr')].find(r => r.cells[0].textContent === 'a')`
	b.mustWait(t, "endpoint a shows", `!!(`+row+`)`)
	b.screenshot(t, "timedout-latency-health")
	cell := strings.Join(strings.Fields(eval[string](t, b, row+`.lastElementChild.textContent`)), " ")
	if !strings.Contains(cell, "timed out") || !strings.Contains(cell, "ms") {
		t.Errorf("endpoint a's last attempt timed out and it is cooling; its latency cell says %q", cell)
	}
}
