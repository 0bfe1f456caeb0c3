package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
)

// Operator probe 52b. The Keys page (docs/console.md, "Keys": "a key a limit refuses now says
// which, until when"; the page: "A key its limit refuses says so until the window turns") decides
// "refused now" from this replica's memory of having refused the key (limit.Limiter.Refused), not
// from the counters it shows. A budget is checked when a request is admitted and spent when it
// ends, so the request that crosses a budget is served and the key is then over it — every next
// request gets 429 — but until this replica refuses one, the page says "—" and "0 refused now".
// The same after a restart, and on every other replica (with Redis) than the one that refused.
// Observed live (/work/operator52b, shots/p3-keys.png, after a restart on Redis): team-a
// `spend today $0.0556 100% of $0.0500`, team-b `spend this month $0.0415 100% of $0.0300`,
// summary "3 keys, 3 with limits; 2 at 80% or more of a limit; 0 refused now"; team-a's next
// request: `429 … has spent its usd_per_day budget ($0.05)`. Also the percentage stops at 100%
// (app.js: Math.min(100, …)), so a key at 111% or 138% of its budget reads as exactly at it.
func TestConsoleKeysSaysAKeyOverItsBudgetIsRefused_op52b(t *testing.T) {
	b := newBrowser(t)
	fakes := keysUpstream(t)
	g := startGateway(t, `
client_keys:
  - {name: team-a, key: key-team-a-0001, budget: {usd_per_day: 0.01}}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}/v1", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
routes:
  - {name: fast, targets: [gpt]}
`, fakes)
	auth := []string{"Authorization", "Bearer key-team-a-0001"}
	if _, st := g.chat(t, "fast", auth...); st != 200 {
		t.Fatalf("team-a's first request: %d", st)
	}
	g.recs.Wait(t, 1)
	// team-a has now spent $0.0125 of its $0.01 day: its next request is refused (the existing
	// TestConsoleKeysShowSpendAndRefusals sends it; here the operator looks first).

	b.do(t, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(g.URL+"/ui/keys"))
	b.mustWait(t, "the keys", `document.querySelectorAll('#keys tbody tr').length === 1`)
	b.mustWait(t, "the spend", `document.querySelector('#keys tbody tr td[data-label="Used"]').textContent.includes('$0.0125')`)
	b.screenshot(t, "keys-over-budget-op52b")
	cell := func(label string) string {
		return eval[string](t, b, `document.querySelector('#keys tbody tr td[data-label="`+label+`"]').textContent`)
	}
	summary := eval[string](t, b, `document.querySelector('#keys-summary').textContent`)
	if got := cell("Refused now"); !strings.Contains(got, "usd_per_day") || !strings.Contains(summary, "1 refused now") {
		t.Errorf("team-a has spent $0.0125 of its $0.01 day (its next request is a 429) but the page says Refused now %q, summary %q", got, summary)
	}
	if got := cell("Used"); strings.Contains(got, "100%") && !strings.Contains(got, "125%") {
		t.Errorf("team-a at $0.0125 of $0.01 (125%%) reads %q: the share stops at 100%%", got)
	}
	// Then the request that the page did not call refused is refused.
	if _, st := g.chat(t, "fast", auth...); st != 429 {
		t.Fatalf("team-a's next request: %d, want 429", st)
	}
}
