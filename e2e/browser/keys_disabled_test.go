package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// A key the operator suspended (`disabled: true`) reads "disabled" in the
// Keys page's "Refused now" cell, with nothing about a window to wait for,
// and counts among the keys refused now; a key beside it that no limit
// refuses reads "—" (docs/console.md, "Keys").
func TestConsoleKeysShowADisabledKey(t *testing.T) {
	b := newBrowser(t)
	g := startGateway(t, `
client_keys:
  - {name: team-a, key: key-team-a-00061, budget: {usd_per_day: 5}, disabled: true}
  - {name: team-b, key: key-team-b-00061}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}/v1", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
routes:
  - {name: fast, targets: [gpt]}
`, keysUpstream(t))
	if _, st := g.chat(t, "fast", "Authorization", "Bearer key-team-a-00061"); st != 403 {
		t.Fatalf("a disabled key's request: %d, want 403", st)
	}
	b.do(t, chromedp.EmulateViewport(1280, 600), chromedp.Navigate(g.URL+"/ui/keys"))
	b.mustWait(t, "the keys", `document.querySelectorAll('#keys tbody tr').length >= 2`)
	refused := func(key string) string {
		return eval[string](t, b, `[...document.querySelectorAll('#keys tbody tr')].filter(r => r.querySelector('td[data-label="Key"]').textContent === '`+key+`')[0].querySelector('td[data-label="Refused now"]').innerText`)
	}
	if got := refused("team-a"); !strings.Contains(got, "disabled") || strings.Contains(got, "until 0") {
		t.Errorf("team-a (disabled): its Refused now cell reads %q, want it disabled", got)
	}
	if got := strings.TrimSpace(refused("team-b")); got != "—" {
		t.Errorf("team-b (served): its Refused now cell reads %q, want —", got)
	}
	if got := eval[string](t, b, `document.querySelector('#keys-summary').textContent`); !strings.Contains(got, "1 refused now (1 disabled)") {
		t.Errorf("summary %q, want the disabled key counted as refused", got)
	}
	b.screenshot(t, "keys-disabled")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
