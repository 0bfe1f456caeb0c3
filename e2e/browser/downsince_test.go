package browser

import (
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator woken at 2 am asks since when a provider has been down.
// Each failed probe starts a new short cooldown, so the countdown says
// seconds all night (operator review 55); the Health page's "Down since"
// says when the endpoint first went out, and keeps saying it through
// failed probes; a healthy row says "—".
func TestConsoleSaysSinceWhenAnEndpointIsDown(t *testing.T) {
	b := newBrowser(t)
	fakes := map[string]*upstreamtest.Server{
		"broken": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"The server had an error while processing your request. Sorry about that!","type":"server_error","param":null,"code":null}}`})),
		"backup": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")})),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
health: {failure_threshold: 1, cooldown: 1s, max_cooldown: 1m}
retry: {max_wait: 0s}
providers:
  - {name: broken, dialect: openai, base_url: "{broken}", api_key: `+secret+`}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: `+secret+`}
targets:
  - {name: first, model: gpt-4o, providers: [broken]}
  - {name: second, model: gpt-4o, providers: [backup]}
routes:
  - {name: chain, targets: [first, second]}
`, fakes)
	before := time.Now().Add(-time.Second)
	g.chat(t, "chain") // broken fails and cools; backup answers

	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/health"))
	row := func(table, name string) string {
		return `[...document.querySelectorAll('#` + table + ` tbody tr')].find(r => r.cells[0].textContent === '` + name + `')`
	}
	since := func(table, name string) string {
		return row(table, name) + `.querySelector('td[data-label="Down since"] time')?.getAttribute('datetime') ?? ''`
	}
	b.mustWait(t, "first is cooling", `!!`+row("endpoints", "first")+` && `+row("endpoints", "first")+`.querySelector('td[data-label="State"]').textContent.includes('cooling')`)
	first := eval[string](t, b, since("endpoints", "first"))
	at, err := time.Parse(time.RFC3339Nano, first)
	if err != nil || at.Before(before) || at.After(time.Now()) {
		t.Fatalf("first's down since %q (%v): want the time of its failure", first, err)
	}
	if got := eval[string](t, b, row("endpoints", "second")+`.querySelector('td[data-label="Down since"]').textContent`); got != "—" {
		t.Errorf("healthy second is down since %q", got)
	}

	// The cooldown ends and the probe fails: a new cooldown, the same start.
	time.Sleep(1200 * time.Millisecond)
	g.chat(t, "chain")
	if n := fakes["broken"].Calls(); n != 2 {
		t.Fatalf("broken was called %d times, want 2 (the first failure and the probe)", n)
	}
	b.mustWait(t, "the page to show the second cooldown", row("endpoints", "first")+`.querySelector('td[data-label="Cooldown left"]').textContent.match(/^[0-9]/) !== null`)
	if got := eval[string](t, b, since("endpoints", "first")); got != first {
		t.Errorf("after a failed probe first is down since %q, want %q still", got, first)
	}
	b.screenshot(t, "health-down-since")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("page errors: %q", errs)
	}
}
