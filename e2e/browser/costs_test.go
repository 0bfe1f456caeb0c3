package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The Costs page answers what an operator of a shared gateway asks after
// "is it up": who spent what, where, and how much of it is a lower bound
// (docs/console.md, "Costs"). Before round 54 the console showed no cost
// anywhere: not per request, not per key without a budget, not per target.
//
// team-a's two requests each meet a gateway timeout at the first target
// (504 after sending: billable, its usage never said) and are answered by
// gpt ($0.0125 each); team-b's one request goes to gpt straight.
func TestConsoleCostsShowSpendByKeyAndTarget(t *testing.T) {
	b := newBrowser(t)
	fakes := map[string]*upstreamtest.Server{
		// nginx's own 504 page, as a proxy in front of a model server sends it.
		"slow": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 504, Header: map[string]string{"Content-Type": "text/html"},
			Body: "<html>\r\n<head><title>504 Gateway Time-out</title></head>\r\n<body>\r\n<center><h1>504 Gateway Time-out</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"})),
	}
	for k, v := range keysUpstream(t) {
		fakes[k] = v
	}
	t.Cleanup(fakes["slow"].Close)
	g := startGateway(t, `
client_keys:
  - {name: team-a, key: key-team-a-0001, budget: {usd_per_day: 5}}
  - {name: team-b, key: key-team-b-0001}
providers:
  - {name: selfhost, dialect: openai, base_url: "{slow}/v1", api_key: `+secret+`}
  - {name: openai, dialect: openai, base_url: "{oa}/v1", api_key: `+secret+`}
targets:
  - {name: llama, model: llama-3.3-70b, providers: [selfhost], price: {input: 0.5, output: 1}}
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
routes:
  - {name: deep, targets: [llama, gpt]}
`, fakes)
	auth := func(k string) []string { return []string{"Authorization", "Bearer " + k} }
	for range 2 {
		if _, st := g.chat(t, "deep", auth("key-team-a-0001")...); st != 200 {
			t.Fatalf("team-a: %d", st)
		}
	}
	if _, st := g.chat(t, "gpt", auth("key-team-b-0001")...); st != 200 {
		t.Fatalf("team-b: %d", st)
	}
	g.recs.Wait(t, 3)

	b.do(t, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(g.URL+"/ui/costs"))
	b.mustWait(t, "the costs by key", `document.querySelectorAll('#costs tbody tr').length === 2`)
	b.screenshot(t, "costs-by-client")
	col := func(key, label string) string {
		return eval[string](t, b, `[...document.querySelectorAll('#costs tbody tr')].find(r => r.querySelector('td[data-label="Client key"]').textContent === '`+key+`').querySelector('td[data-label="`+label+`"]').textContent`)
	}
	for _, c := range []struct{ key, label, want string }{
		{"team-a", "Requests", "2"},
		{"team-a", "Cost", "$0.0250"},
		{"team-a", "Cost unknown", "2"}, // the two timeouts: billable, never said what they used
		{"team-a", "Failovers", "2"},
		{"team-b", "Requests", "1"},
		{"team-b", "Cost", "$0.0125"},
		{"team-b", "Input tokens", "1,000"},
		{"team-b", "Output tokens", "1,000"},
	} {
		if got := col(c.key, c.label); got != c.want {
			t.Errorf("%s, %s: %q, want %q", c.key, c.label, got, c.want)
		}
	}
	// A budgeted key's answer a gateway timed out (its 504) counts its
	// ceiling (docs/behaviour.md#budgets): no limit set, 128,000 output
	// tokens at $1 a million each, beside a 2-token prompt's estimate.
	if got := col("team-a", "Estimated"); got != "$0.2560" {
		t.Errorf("team-a's budget counted its timeouts at %q, want $0.2560 (two ceilings)", got)
	}
	if got := eval[string](t, b, `document.querySelector('#costs tfoot').textContent`); !strings.Contains(got, "$0.0375") {
		t.Errorf("the total row %q, want $0.0375", got)
	}
	sum := eval[string](t, b, `document.querySelector('#costs-summary').textContent`)
	for _, want := range []string{"Spent $0.0375", "over 3 requests", "2 billable attempts never said what they used", "lower bound"} {
		if !strings.Contains(sum, want) {
			t.Errorf("summary %q lacks %q", sum, want)
		}
	}

	// By target: the timeouts are llama's (priced, cost unknown), the
	// answers gpt's.
	b.do(t, chromedp.Navigate(g.URL+"/ui/costs?by=target&window=today"))
	b.mustWait(t, "the costs by target", `document.querySelectorAll('#costs tbody tr').length === 2 && document.querySelector('#costs-by').textContent === 'Target'`)
	b.screenshot(t, "costs-by-target")
	rows := eval[[]string](t, b, `[...document.querySelectorAll('#costs tbody tr')].map(r => [...r.cells].map(c => c.textContent).join('|'))`)
	if len(rows) != 2 || !strings.HasPrefix(rows[0], "gpt|3|") || !strings.Contains(rows[0], "|$0.0375|0|") ||
		!strings.HasPrefix(rows[1], "llama|2|") || !strings.Contains(rows[1], "|$0.0000|2|") {
		t.Errorf("by target, costliest first: %q", rows)
	}

	// Decisions: each request's cost, and in a request's failover path each
	// attempt's cost and that the request may be billed twice.
	b.do(t, chromedp.Navigate(g.URL+"/ui/decisions"))
	b.mustWait(t, "the decisions", `document.querySelectorAll('#decisions tbody tr').length === 3`)
	costs := eval[[]string](t, b, `[...document.querySelectorAll('#decisions tbody td[data-label="Cost"]')].map(c => c.textContent)`)
	if strings.Join(costs, ",") != "$0.0125,≥ $0.0125 (part unknown),≥ $0.0125 (part unknown)" {
		t.Errorf("the Cost column, newest first: %q (team-b's $0.0125, then team-a's: at least $0.0125, each with a timeout whose cost is unknown)", costs)
	}
	b.do(t, chromedp.Click(chromedp.CSS(`#decisions tbody tr:nth-child(2) a`)))
	b.mustWait(t, "the failover path", `!document.querySelector('#detail').hidden && document.querySelectorAll('#detail .step').length === 2`)
	b.screenshot(t, "costs-failover-path")
	detail := eval[string](t, b, `document.querySelector('#detail').textContent`)
	for _, want := range []string{"paid twice", "cost unknown", "usage never came: counted at its ceiling, $0.1280", "1000 in + 1000 out tokens", "cost $0.0125"} {
		if !strings.Contains(detail, want) {
			t.Errorf("the failover path lacks %q:\n%s", want, detail)
		}
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
