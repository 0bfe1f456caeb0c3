package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator opens Health to learn why an endpoint has been tried last
// all day and why an account cools: the page must say the class that
// started each cooldown, in the upstream's own words, even after a later
// failure of another class there (a timeout at the retired model's
// endpoint), and show those words as text, never as markup.
func TestConsoleSaysWhyItCools_review40b(t *testing.T) {
	b := newBrowser(t)
	retired := upstreamtest.Step{Status: 404, Body: corpusBody(t, "openai-model-deprecated-learn-more-model-not-found-404")}
	hang := upstreamtest.Step{Delay: 3 * time.Second, Body: upstreamtest.ChatJSON("text-davinci-003", "late")}
	markup := upstreamtest.Step{Status: 404, Body: `{"error":{"message":` + jsonString(`Model gone <img src=x onerror="window.__pwned=1">`) +
		`,"type":"invalid_request_error","param":null,"code":"model_not_found"}}`}
	fakes := map[string]*upstreamtest.Server{
		"old":    upstreamtest.New(upstreamtest.Steps(retired, hang)),
		"capped": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 400, Body: corpusBody(t, "anthropic-specified-api-usage-limits-regain-access-400")})),
		"evil":   upstreamtest.New(upstreamtest.Steps(markup)),
		"backup": upstreamtest.New(func(n int, _ upstreamtest.Request) upstreamtest.Step {
			if n == 1 {
				return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")}
			}
			return upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal error"}}`}
		}),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
health: {cooldown: 1s, max_cooldown: 1m, unavailable_cooldown: 24h}
retry: {max_wait: 0s}
providers:
  - {name: old, dialect: openai, base_url: "{old}", api_key: `+secret+`, timeout: 300ms}
  - {name: capped, dialect: anthropic, base_url: "{capped}", api_key: `+secret+`}
  - {name: evil, dialect: openai, base_url: "{evil}", api_key: `+secret+`}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: `+secret+`}
targets:
  - {name: davinci, model: text-davinci-003, providers: [old]}
  - {name: claude, model: claude-sonnet-4-5, providers: [capped]}
  - {name: villain, model: evil-1, providers: [evil]}
  - {name: gpt, model: gpt-4o, providers: [backup]}
routes:
  - {name: legacy, targets: [davinci, gpt], fallback_on: [unavailable, server_error, timeout]}
  - {name: capped, targets: [claude]}
  - {name: hostile, targets: [villain]}
`, fakes)
	// davinci's model is gone (gpt answers); then gpt fails and davinci,
	// cooling, is tried last and times out.
	g.chat(t, "legacy")
	g.chat(t, "legacy")
	g.chat(t, "capped")
	g.chat(t, "hostile")

	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/health"))
	row := func(table, name string) string {
		return `[...document.querySelectorAll('#` + table + ` tbody tr')].find(r => r.cells[0].textContent === '` + name + `')`
	}
	col := func(table, label string) string { // a cell by its label, as the phone layout reads it
		return `.querySelector('td[data-label="` + label + `"]').textContent`
	}
	b.mustWait(t, "davinci timed out", `!!`+row("endpoints", "davinci")+` && `+row("endpoints", "davinci")+col("endpoints", "Last class")+` === 'timeout'`)

	const deprecated = "The model `…` has been deprecated, learn more here: https://platform.openai.com/docs/deprecations"
	if got := eval[string](t, b, row("endpoints", "davinci")+col("endpoints", "Cooling for")); got != "unavailable "+deprecated {
		t.Errorf("davinci is cooling for %q; want unavailable in OpenAI's words", got)
	}
	const regain = "You have reached your specified API usage limits. You will regain access on 2026-04-01 at 00:00 UTC."
	if got := eval[string](t, b, row("accounts", "capped")+col("accounts", "Cooling for")); got != "quota "+regain {
		t.Errorf("account capped is cooling for %q; want quota in Anthropic's words", got)
	}
	if got := eval[string](t, b, row("endpoints", "claude")+col("endpoints", "Cooling for")); got != "quota "+regain {
		t.Errorf("claude/capped is cooling for %q; want its account's cause", got)
	}
	if got := eval[string](t, b, row("endpoints", "gpt")+col("endpoints", "Cooling for")); got != "—" {
		t.Errorf("gpt/backup (%s) is cooling for %q", eval[string](t, b, row("endpoints", "gpt")+col("endpoints", "State")), got)
	}
	said := eval[string](t, b, row("endpoints", "villain")+`.querySelector('td[data-label="Cooling for"] q').textContent`)
	if !strings.Contains(said, "<img") {
		t.Errorf("the hostile words read %q: want them as text", said)
	}
	if n := eval[int](t, b, `document.querySelectorAll('main img, main script').length + (window.__pwned ? 100 : 0)`); n != 0 {
		t.Errorf("upstream words became markup (%d)", n)
	}
	b.screenshot(t, "health-cooling-for-review40b")
	b.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)), chromedp.Navigate(g.URL+"/ui/health"))
	b.mustWait(t, "the phone page", `document.body.dataset.updated !== undefined`)
	if w := eval[int](t, b, `document.documentElement.scrollWidth - window.innerWidth`); w > 1 {
		t.Errorf("health is %dpx wider than a phone's screen", w)
	}
	b.screenshot(t, "phone-health-cooling-for-review40b")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("page errors: %q", errs)
	}
}
