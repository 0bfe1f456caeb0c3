package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// secret is every fake provider's key: it must never reach a page.
const secret = "sk-browser-secret-42"

// corpusBody is the body of a real answer in classify/testdata/corpus.
func corpusBody(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", "classify", "testdata", "corpus", name+".json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct{ Body string }
	if err := json.Unmarshal(b, &c); err != nil {
		t.Fatal(err)
	}
	return c.Body
}

// oddAnswer is a 400 in words nobody taught the classifier; its request
// number and percentage change from call to call, as real ones do.
func oddAnswer(n int) string {
	return fmt.Sprintf(`{"error":{"message":"The frobnicator declined request %d: flux capacitor at %d%%, come back later.","type":"invalid_request_error"}}`, 7000+n*37, 10+n)
}

// hostile is an upstream message written to break a page that renders it
// as markup.
const hostile = `<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script> & "quotes" are 'not' markup`

// hostileShown is hostile as the decision record keeps it (quoted values
// masked: that is where upstreams quote the client's input), still markup
// if a page rendered it as such.
var hostileShown = decision.UpstreamMessage(hostile)

const gatewayYAML = `
providers:
  - {name: capped, dialect: anthropic, base_url: "{capped}", api_key: ` + secret + `}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: ` + secret + `}
  - {name: odd, dialect: openai, base_url: "{odd}", api_key: ` + secret + `}
  - {name: evil, dialect: openai, base_url: "{evil}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [capped]}
  - {name: gpt, model: gpt-4o, providers: [backup]}
  - {name: oddball, model: odd-1, providers: [odd]}
  - {name: villain, model: evil-1, providers: [evil]}
routes:
  - {name: deep, targets: [claude, gpt]}
  - {name: weird, targets: [oddball, gpt]}
  - {name: hostile, targets: [villain, gpt]}
`

// An operator watches a failover happen and reads why, copies a rule for
// an unknown sentence, and sees upstream text as text, in a real browser,
// on a laptop and a phone.
func TestConsoleInABrowser(t *testing.T) {
	b := newBrowser(t)
	fakes := map[string]*upstreamtest.Server{
		"capped": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 400, Body: corpusBody(t, "anthropic-workspace-usage-limits")})),
		"backup": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello."), Delay: 30 * time.Millisecond})),
		"odd": upstreamtest.New(func(n int, _ upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Status: 400, Body: oddAnswer(n)}
		}),
		"evil": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 400,
			Body: `{"error":{"message":` + jsonString(hostile) + `}}`})),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, gatewayYAML, fakes)
	t.Logf("screenshots go to %s", shots(t))

	t.Run("Health shows every configured endpoint", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/health"))
		b.mustWait(t, "endpoints", `document.querySelectorAll('#endpoints tbody tr').length === 4`)
		got := eval[[]string](t, b, `[...document.querySelectorAll('#endpoints tbody tr')].map(r => r.cells[0].textContent + '/' + r.cells[1].textContent + ' ' + r.cells[2].textContent + ' ' + r.cells[3].textContent)`)
		want := []string{"claude/capped claude-sonnet-4-5 healthy", "gpt/backup gpt-4o healthy", "oddball/odd odd-1 healthy", "villain/evil evil-1 healthy"}
		if strings.Join(got, "|") != strings.Join(want, "|") {
			t.Errorf("endpoints:\n got %q\nwant %q", got, want)
		}
		if n := eval[int](t, b, `document.querySelectorAll('#accounts tbody tr').length`); n != 4 {
			t.Errorf("%d accounts, want 4", n)
		}
		b.screenshot(t, "health")
	})

	var failoverID string
	t.Run("A failover appears in Decisions within 2s with its classes in order", func(t *testing.T) {
		b.do(t, chromedp.Navigate(g.URL+"/ui/decisions"))
		b.mustWait(t, "the live tail", `document.body.dataset.updated !== undefined`)
		id, status := g.chat(t, "deep")
		answered := time.Now()
		if status != 200 || id == "" {
			t.Fatalf("request: %d %q", status, id)
		}
		failoverID = id
		sel := `tr[data-id="` + id + `"]`
		if !b.waitFor(`!!document.querySelector('`+sel+`')`, 2*time.Second) {
			t.Fatalf("the request did not appear in Decisions within 2s of its answer")
		}
		t.Logf("appeared %v after the answer", time.Since(answered).Round(time.Millisecond))
		classes := eval[[]string](t, b, `[...document.querySelectorAll('`+sel+` ol.path .badge')].map(b => b.textContent)`)
		if strings.Join(classes, ",") != "quota,ok" {
			t.Errorf("row classes %q, want quota then ok", classes)
		}
		// Open it from the keyboard: the link, then Enter.
		b.do(t, chromedp.Focus(chromedp.CSS(sel+" a")), chromedp.KeyEvent("\r"))
		b.mustWait(t, "the detail", `!document.querySelector('#detail').hidden && document.activeElement && document.activeElement.id === 'detail-h'`)
		steps := eval[[]string](t, b, `[...document.querySelectorAll('#detail .steps > li')].map(li =>
			li.querySelector('.step-head').textContent + ' | ' + li.querySelector('.verdict').textContent + ' | ' + li.querySelector('.action').textContent)`)
		want := []string{
			"1claude at capped · claude-sonnet-4-5 | HTTP 400 → quota because phrase:workspace api usage limits | → next target",
			"2gpt at backup · gpt-4o | HTTP 200 → ok | ✓ answered the client",
		}
		if strings.Join(steps, "\n") != strings.Join(want, "\n") {
			t.Errorf("failover path:\n got %q\nwant %q", steps, want)
		}
		if tr := eval[string](t, b, `document.querySelector('#detail .transitions').textContent`); !strings.Contains(tr, "account capped: healthy → cooling (quota)") {
			t.Errorf("health changes: %q", tr)
		}
		b.screenshot(t, "decisions-failover")

		// The account now cools, with a countdown, on the Health page.
		b.do(t, chromedp.Navigate(g.URL+"/ui/health"))
		b.mustWait(t, "the cooling account", `[...document.querySelectorAll('#accounts tbody tr')].some(r => r.cells[0].textContent === 'capped' && r.cells[1].textContent === 'cooling' && /^\d+m \d+s$/.test(r.querySelector('td[data-label="Cooldown left"]').textContent))`)
		ev := eval[string](t, b, `[...document.querySelectorAll('#endpoints tbody tr')][0].querySelector('td[data-label="Last failure seen here"]').textContent`)
		if !strings.Contains(ev, "quota") || !strings.Contains(ev, "phrase:workspace api usage limits") {
			t.Errorf("claude/capped's last failure: %q", ev)
		}
		b.screenshot(t, "health-after-failover")
	})

	t.Run("An unknown answer gets a rule that classifies the next one", func(t *testing.T) {
		id, _ := g.chat(t, "weird")
		if d := g.recs.ByID(t, id); d.Attempts[0].Class != "unknown" {
			t.Fatalf("the odd answer was %s, not unknown", d.Attempts[0].Class)
		}
		b.do(t, chromedp.Navigate(g.URL+"/ui/unknowns"))
		group := `[...document.querySelectorAll('article.group')].find(a => a.querySelector('.meta strong').textContent === 'odd')`
		b.mustWait(t, "the unknown group", `!!`+group)
		pattern := eval[string](t, b, group+`.querySelector('h2').textContent`)
		if pattern != "The frobnicator declined request <n>: flux capacitor at <n>%, come back later." {
			t.Errorf("group pattern %q", pattern)
		}
		// The operator decides it is a rate limit, and copies the rule.
		eval[bool](t, b, `(() => { const s = `+group+`.querySelector('select'); s.value = 'rate_limited'; s.dispatchEvent(new Event('change')); return true })()`)
		b.do(t, chromedp.Click(chromedp.CSS("article.group button")))
		b.mustWait(t, "the copy", group+`.querySelector('.copied').textContent !== ''`)
		rule := eval[string](t, b, group+`.querySelector('textarea').value`)
		if !strings.HasPrefix(rule, "- {provider: odd, status: 400, match: '") || !strings.HasSuffix(rule, ", class: rate_limited}") {
			t.Fatalf("rule %q", rule)
		}
		b.screenshot(t, "unknowns")

		g.reload(t, g.yaml+"classify:\n  rules:\n    "+rule+"\n")
		id, status := g.chat(t, "weird")
		d := g.recs.ByID(t, id)
		if a := d.Attempts[0]; a.Class != "rate_limited" || a.Evidence != "rule:1" || status != 200 {
			t.Errorf("after the pasted rule, the next odd answer (%s) is %s by %s", a.Message, a.Class, a.Evidence)
		}
	})

	t.Run("Upstream text is shown as text", func(t *testing.T) {
		id, _ := g.chat(t, "hostile")
		b.do(t, chromedp.Navigate(g.URL+"/ui/unknowns"))
		group := `[...document.querySelectorAll('article.group')].find(a => a.querySelector('.meta strong').textContent === 'evil')`
		b.mustWait(t, "the hostile group", `!!`+group)
		if got := eval[string](t, b, group+`.querySelector('blockquote').textContent`); got != hostileShown {
			t.Errorf("message shown as %q, want the text as sent", got)
		}
		b.do(t, chromedp.Navigate(g.URL+"/ui/decisions?id="+id))
		b.mustWait(t, "the detail", `!document.querySelector('#detail').hidden && !!document.querySelector('#detail blockquote')`)
		if got := eval[string](t, b, `document.querySelector('#detail blockquote').textContent`); !strings.HasSuffix(got, hostileShown) {
			t.Errorf("detail message %q", got)
		}
		if n := eval[int](t, b, `document.querySelectorAll('main img, main script').length + (window.__pwned ? 100 : 0)`); n != 0 {
			t.Errorf("upstream text became markup (%d)", n)
		}
		b.screenshot(t, "decisions-hostile-text")
	})

	t.Run("Classes over time charts the last hour", func(t *testing.T) {
		b.do(t, chromedp.Navigate(g.URL+"/ui/classes"))
		b.mustWait(t, "the chart", `document.querySelectorAll('#chart svg rect').length > 0`)
		legend := eval[string](t, b, `document.querySelector('#legend').textContent`)
		for _, want := range []string{"quota 1", "unknown 2", "rate_limited 1"} {
			if !strings.Contains(legend, want) {
				t.Errorf("legend %q lacks %q", legend, want)
			}
		}
		if strings.Contains(legend, "ok") {
			t.Errorf("ok is charted before it is asked for: %q", legend)
		}
		b.do(t, chromedp.Click(chromedp.CSS("#show-ok")))
		b.mustWait(t, "ok in the legend", `document.querySelector('#legend').textContent.includes('ok 4')`)
		b.screenshot(t, "classes")
	})

	t.Run("Filters narrow the tail", func(t *testing.T) {
		b.do(t, chromedp.Navigate(g.URL+"/ui/decisions?class=quota"))
		b.mustWait(t, "the filtered tail", `document.body.dataset.updated !== undefined && document.querySelectorAll('#decisions tbody tr').length > 0`)
		ids := eval[[]string](t, b, `[...document.querySelectorAll('#decisions tbody tr')].map(r => r.dataset.id)`)
		if len(ids) != 1 || ids[0] != failoverID {
			t.Errorf("class=quota shows %v, want only %s", ids, failoverID)
		}
		if v := eval[string](t, b, `document.querySelector('select[name=class]').value`); v != "quota" {
			t.Errorf("the class filter reads %q", v)
		}
	})

	t.Run("Every page reads on a phone", func(t *testing.T) {
		b.do(t, chromedp.EmulateViewport(390, 844, chromedp.EmulateMobile, chromedp.EmulateScale(2)))
		for _, p := range []string{"health", "decisions?id=" + failoverID, "classes", "unknowns"} {
			b.do(t, chromedp.Navigate(g.URL+"/ui/"+p))
			b.mustWait(t, p, `document.body.dataset.updated !== undefined`)
			if w := eval[int](t, b, `document.documentElement.scrollWidth - window.innerWidth`); w > 1 {
				t.Errorf("%s is %dpx wider than a phone's screen", p, w)
			}
			b.screenshot(t, "phone-"+strings.SplitN(p, "?", 2)[0])
		}
		b.do(t, chromedp.EmulateViewport(1280, 900))
	})

	for _, p := range []string{"health", "decisions", "classes", "unknowns", "api/decisions", "api/unknowns", "api/health"} {
		body := fetchText(t, g.URL+"/ui/"+p)
		if strings.Contains(body, secret) {
			t.Errorf("/ui/%s shows a provider key", p)
		}
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("the pages reported errors (CSP, Trusted Types, exceptions):\n%s", strings.Join(errs, "\n"))
	}
}
