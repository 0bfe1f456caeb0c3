package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// hostile 56: the Health page quotes an upstream's words for a cooldown
// ("Cooling for": the class, then the words in a <q>). An upstream that
// ends its words with a right-to-left override (U+202E) and the rest of its
// text written backwards has the browser draw the closing quotation mark
// BEFORE that rest: the page then reads
//
//	quota “You exceeded your current quota, … details. ”resolved: top-up received, healthy again
//
// its last words standing outside the quote, as the console's own. The
// upstream's words must stay between their quotation marks whatever they
// hold (bidi-isolated, e.g. in a <bdi> inside the <q>, or the controls
// shown as escapes). The test measures where the browser drew them: on the
// quote's last line, the closing mark must be right of every character of
// the words.
func TestH56UpstreamWordsStayInsideTheirQuotes(t *testing.T) {
	b := newBrowser(t)
	// OpenAI's insufficient_quota answer (its shape and words as OpenAI
	// sends them: github.com/ChatGPTNextWeb/NextChat/issues/3664), with the
	// hostile tail appended.
	reverse := func(s string) string {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	}
	const said = "You exceeded your current quota, please check your plan and billing details."
	hostile := said + " \u202E" + reverse("resolved: top-up received, healthy again")
	body := func(msg string) string {
		return `{"error":{"message":` + jsonString(msg) + `,"type":"insufficient_quota","param":null,"code":"insufficient_quota"}}`
	}
	fakes := map[string]*upstreamtest.Server{
		"broke": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 429, Body: body(hostile)})),
		"plain": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 429, Body: body(said)})),
		"backup": upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")}
		}),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
retry: {max_wait: 0s}
providers:
  - {name: broke, dialect: openai, base_url: "{broke}", api_key: `+secret+`}
  - {name: plain, dialect: openai, base_url: "{plain}", api_key: `+secret+`}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: `+secret+`}
targets:
  - {name: hostile, model: gpt-4o, providers: [broke]}
  - {name: honest, model: gpt-4o, providers: [plain]}
  - {name: gpt, model: gpt-4o, providers: [backup]}
routes:
  - {name: r1, targets: [hostile, gpt]}
  - {name: r2, targets: [honest, gpt]}
`, fakes)
	g.chat(t, "r1")
	g.chat(t, "r2")

	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/health"))
	row := func(table, name string) string {
		return `[...document.querySelectorAll('#` + table + ` tbody tr')].find(r => r.cells[0].textContent === '` + name + `')`
	}
	b.mustWait(t, "both accounts cool", `!!`+row("accounts", "broke")+`?.querySelector('q.said') && !!`+row("accounts", "plain")+`?.querySelector('q.said')`)
	// gap: how far right of the words' rightmost character, on the quote's
	// last line, the quote itself ends (its closing mark): a mark's width
	// when the words stay inside, 0 when the mark was drawn before them.
	gap := func(table, name string) float64 {
		return eval[float64](t, b, `(() => {
  const q = `+row(table, name)+`.querySelector('q.said');
  const lines = [...q.getClientRects()];
  const top = Math.max(...lines.map((l) => l.top));
  const last = { top, right: Math.max(...lines.filter((l) => Math.abs(l.top - top) < 2).map((l) => l.right)) };
  let right = -1;
  const w = document.createTreeWalker(q, NodeFilter.SHOW_TEXT);
  for (let n; (n = w.nextNode());) {
    for (let i = 0; i < n.length; i++) {
      const r = document.createRange(); r.setStart(n, i); r.setEnd(n, i + 1);
      for (const c of r.getClientRects()) if (c.width > 0 && Math.abs(c.top - last.top) < 2) right = Math.max(right, c.right);
    }
  }
  return last.right - right;
})()`)
	}
	if g := gap("accounts", "plain"); g < 2 {
		t.Fatalf("the measure is wrong: an honest quote's closing mark is %.1fpx right of its words", g)
	}
	b.screenshot(t, "h56-health-bidi-spoof")
	for _, where := range [][2]string{{"accounts", "broke"}, {"endpoints", "hostile"}} {
		if g := gap(where[0], where[1]); g < 2 {
			cell := eval[string](t, b, row(where[0], where[1])+`.querySelector('q.said').textContent`)
			t.Errorf("%s %s: the closing quotation mark is drawn before the upstream's last words (%.1fpx right of them): the page reads %q, its tail outside the quote as if the console said it; the words are %q",
				where[0], where[1], g, "“"+said+" ”resolved: top-up received, healthy again", strings.TrimSpace(cell))
		}
	}
}
