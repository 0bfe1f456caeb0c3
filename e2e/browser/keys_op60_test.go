package browser

// Operator review 60: the Keys page and max_concurrent, and a bar past its cap.

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Observed (/work/op60/keys1.png, keys2.png, keys_redis.png): a key's max_concurrent showed as a
// row "only N at once" only while the key had no budget or rate, and never how many of its
// requests were in progress — what an operator needs when a team complains of
// `client_concurrency_limit_exceeded`; and a key at 112%, 114%, 238% of its budget had an amber
// bar (only the figure was red), where docs/console.md says a use at the limit is red.
//
// team-c (a $10 day and max_concurrent: 2) has two requests held open by a slow upstream, so its
// third is refused: its Keys rows show the budget and, below it, "requests at once (this replica)
// 2 in progress … of 2", at its cap, so red; once the two end, "0 in progress". spender has spent
// $0.0125 of its $0.01 day (125%): its bar is red, as its figure is; team-c's budget bar (0%) is not.
func TestConsoleKeysShowConcurrencyBesideABudgetAndRedPastTheCap_op60(t *testing.T) {
	b := newBrowser(t)
	fakes := keysUpstream(t)
	// The slow upstream answers once the test opens the gate: a key with limits keeps its request
	// (and its slot) until the upstream's answer is read, even when its client has left.
	gate := make(chan struct{})
	var once sync.Once
	open := func() { once.Do(func() { close(gate) }) }
	fakes["slow"] = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		<-gate
		return upstreamtest.Step{Body: `{"id":"c2","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Late."},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":10,"total_tokens":20}}`}
	})
	t.Cleanup(func() { open(); fakes["slow"].Close() })
	g := startGateway(t, `
client_keys:
  - {name: spender, key: key-spender-0060, budget: {usd_per_day: 0.01}}
  - {name: team-c, key: key-team-c-00060, budget: {usd_per_day: 10}, max_concurrent: 2}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}/v1", api_key: `+secret+`}
  - {name: slowai, dialect: openai, base_url: "{slow}/v1", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
  - {name: late, model: gpt-4o, providers: [slowai], price: {input: 2.5, output: 10}}
routes:
  - {name: fast, targets: [gpt]}
  - {name: held, targets: [late]}
`, fakes)
	if _, st := g.chat(t, "fast", "Authorization", "Bearer key-spender-0060"); st != 200 {
		t.Fatalf("spender's request: %d", st)
	}
	g.recs.Wait(t, 1)

	// team-c's two requests, held at the slow upstream until the test opens its gate.
	var wg sync.WaitGroup
	t.Cleanup(func() { open(); wg.Wait() })
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
				strings.NewReader(`{"model":"held","messages":[{"role":"user","content":"hi"}]}`))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer key-team-c-00060")
			if resp, err := http.DefaultClient.Do(req); err == nil {
				resp.Body.Close()
			}
		}()
	}
	for deadline := time.Now().Add(20 * time.Second); fakes["slow"].Calls() < 2; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("team-c's two requests never reached the slow upstream (%d did)", fakes["slow"].Calls())
		}
	}
	if _, st := g.chat(t, "held", "Authorization", "Bearer key-team-c-00060"); st != 429 {
		t.Fatalf("team-c's third request with two in progress (max_concurrent: 2): %d, want 429", st)
	}

	b.do(t, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(g.URL+"/ui/keys"))
	b.mustWait(t, "the keys", `document.querySelectorAll('#keys tbody tr').length >= 2`)
	// The rows of a key: its name is in the Key cell of each (visually hidden after the first).
	rows := func(key string) string {
		return `[...document.querySelectorAll('#keys tbody tr')].filter(r => r.querySelector('td[data-label="Key"]').textContent === '` + key + `')`
	}
	text := func(r, label string) string {
		return `(` + r + `.querySelector('td[data-label="` + label + `"]').textContent)`
	}
	conc := rows("team-c") + `.find(r => /at once/.test(` + text("r", "Limit") + `))`
	if !b.waitFor(`!!`+conc+` && `+text(conc, "Used")+`.includes('2 in progress') && `+text(conc, "Of")+`.trim() === '2'`, 20*time.Second) {
		t.Errorf("team-c (a budget and max_concurrent: 2, two requests in progress, its third refused) has no row saying so: its rows read %q",
			eval[string](t, b, rows("team-c")+`.map(r => r.innerText.replace(/\s+/g, ' ')).join(' | ')`))
	}
	b.screenshot(t, "keys-concurrency-op60")

	// barColour is the computed colour of the bar in a row ('' without one); figure the colour
	// of the row's figure.
	barColour := func(r string) string {
		return eval[string](t, b, `(() => { const r = `+r+`; const f = r && r.querySelector('td[data-label="Used"] .gauge .fill'); return f ? getComputedStyle(f).backgroundColor : ''; })()`)
	}
	red := eval[string](t, b, `(() => { const f = `+rows("spender")+`[0].querySelector('.used'); return f ? getComputedStyle(f).color : ''; })()`)
	if red != "rgb(164, 22, 26)" {
		t.Errorf("spender's figure at 125%% of its budget is %q, want the page's red rgb(164, 22, 26)", red)
	}
	budget := rows("spender") + `[0]`
	if got := barColour(budget); got != red {
		t.Errorf("spender at 125%% of its budget: its bar is %q, its figure %q: a bar past its cap is red (docs/console.md, Keys)", got, red)
	}
	if got := barColour(conc); got != red {
		t.Errorf("team-c at 2 of its 2 requests at once: its bar is %q, want red %q", got, red)
	}
	if got := barColour(rows("team-c") + `[0]`); got == red || got == "" {
		t.Errorf("team-c's budget, 0%% used: its bar is %q (red is %q)", got, red)
	}
	if got := eval[string](t, b, `document.querySelector('#keys-summary').textContent`); !strings.Contains(got, "2 keys, 2 with limits; 2 at 80% or more of a limit") {
		t.Errorf("summary %q", got)
	}

	open()
	wg.Wait()
	if !b.waitFor(`!!`+conc+` && `+text(conc, "Used")+`.includes('0 in progress')`, 20*time.Second) {
		t.Errorf("team-c's two requests ended, but its concurrency row reads %q", eval[string](t, b, `(() => { const r = `+conc+`; return r ? r.innerText : ''; })()`))
	}
	b.screenshot(t, "keys-concurrency-ended-op60")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}
