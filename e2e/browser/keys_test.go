package browser

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The Keys page answers what an operator of a shared gateway asks first
// (operator review 51b: "the console shows no spend per key"): which key
// spent what today, which is near or over a limit, and which is refused
// now, until when. team-a spends past its $0.01 day on one answer and is
// refused; team-b has used both of its two requests this minute, so its
// next one this minute is refused; ci has no limits.
func TestConsoleKeysShowSpendAndRefusals(t *testing.T) {
	b := newBrowser(t)
	fakes := keysUpstream(t)
	g := startGateway(t, `
client_keys:
  - {name: team-a, key: key-team-a-0001, budget: {usd_per_day: 0.01}}
  - {name: team-b, key: key-team-b-0001, rate: {requests_per_minute: 2}}
  - {name: ci, key: key-ci-00000001}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}/v1", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10}}
routes:
  - {name: fast, targets: [gpt]}
`, fakes)
	auth := func(k string) []string { return []string{"Authorization", "Bearer " + k} }
	if _, st := g.chat(t, "fast", auth("key-team-a-0001")...); st != 200 {
		t.Fatalf("team-a's first request: %d", st)
	}
	g.recs.Wait(t, 1)
	if _, st := g.chat(t, "fast", auth("key-team-a-0001")...); st != 429 {
		t.Fatalf("team-a past its day's budget ($0.0125 of $0.01): %d, want 429", st)
	}
	for range 2 {
		g.chat(t, "fast", auth("key-team-b-0001")...)
	}

	b.do(t, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(g.URL+"/ui/keys"))
	b.mustWait(t, "the keys", `document.querySelectorAll('#keys tbody tr').length === 3`)
	row := func(key string) string {
		return `[...document.querySelectorAll('#keys tbody tr')].find(r => r.querySelector('td[data-label="Key"]').textContent === '` + key + `')`
	}
	col := func(key, label string) string {
		return eval[string](t, b, row(key)+`.querySelector('td[data-label="`+label+`"]').textContent`)
	}
	b.screenshot(t, "keys")
	for _, c := range []struct{ key, label, want string }{
		{"team-a", "Limit", "spend today (UTC)"},
		{"team-a", "Used", "$0.0125"},
		{"team-a", "Of", "$0.0100"},
		{"team-a", "Refused now", "refused: usd_per_day"},
		{"team-b", "Limit", "requests this minute"},
		{"team-b", "Used", "2"},
		{"team-b", "Of", "2"},
		{"team-b", "Refused now", "refused: requests_per_minute"}, // its next request this minute would be
		{"ci", "Limit", "no limits"},
	} {
		if got := col(c.key, c.label); !strings.Contains(got, c.want) {
			t.Errorf("%s, %s: %q, want %q", c.key, c.label, got, c.want)
		}
	}
	if got := eval[string](t, b, `document.querySelector('#keys-summary').textContent`); !strings.Contains(got, "2 refused now") || !strings.Contains(got, "2 at 80% or more") {
		t.Errorf("summary %q", got)
	}
	if html := fetchText(t, g.URL+"/ui/api/keys"); strings.Contains(html, "key-team-a-0001") {
		t.Error("the Keys API shows a key")
	}
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("console errors: %v", errs)
	}
}

// keysUpstream is an OpenAI-compatible upstream whose every answer counts
// 1,000 input and 1,000 output tokens: $0.0125 at gpt-4o's price.
func keysUpstream(t *testing.T) map[string]*upstreamtest.Server {
	t.Helper()
	fakes := map[string]*upstreamtest.Server{
		"oa": upstreamtest.New(func(_ int, _ upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Body: `{"id":"c1","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"Hello."},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":1000,"total_tokens":2000}}`}
		}),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	return fakes
}
