package browser

import (
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 51b. Gemini retired the model a target named; the
// operator edits the target's model and reloads (docs/deploy.md: "a reload
// that changes … a target's model ends the one it applies to"). Health
// then shows the row with the new model, healthy, and yet "Last failure
// seen here" still says unavailable "This model models/gemini-2.0-flash is
// no longer available…" beside gemini-2.5-flash: the operator reads that
// the new model is retired too. The failure was about the model the
// reload replaced; it should not be shown as the new model's (or it
// should say which model it was about).
func TestConsoleLastFailureOfAReplacedModel_op51b(t *testing.T) {
	b := newBrowser(t)
	retired := upstreamtest.Step{Status: 404, Body: corpusBody(t, "gemini-model-no-longer-available-update-your-code-404")}
	fakes := map[string]*upstreamtest.Server{
		"gem": upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(r.Path, "gemini-2.0-flash") {
				return retired
			}
			return upstreamtest.Step{Body: `{"candidates":[{"content":{"parts":[{"text":"Hello."}],"role":"model"},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":2,"totalTokenCount":5}}`}
		}),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	yaml := `
providers:
  - {name: gemini, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
targets:
  - {name: gem, model: gemini-2.0-flash, providers: [gemini]}
routes:
  - {name: fast, targets: [gem]}
`
	g := startGateway(t, yaml, fakes)
	if _, st := g.chat(t, "fast"); st != 404 {
		t.Fatalf("the retired model answered %d", st)
	}
	g.reload(t, strings.Replace(g.yaml, "gemini-2.0-flash", "gemini-2.5-flash", 1))

	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/health"))
	row := `[...document.querySelectorAll('#endpoints tbody tr')].find(r => r.cells[0].textContent === 'gem')`
	col := func(label string) string { return row + `.querySelector('td[data-label="` + label + `"]').textContent` }
	b.mustWait(t, "the new model shows", `!!`+row+` && `+col("Model")+` === 'gemini-2.5-flash' && `+col("State")+` === 'healthy'`)
	b.screenshot(t, "op51b-replaced-model")
	if got := eval[string](t, b, col("Last failure seen here")); strings.Contains(got, "unavailable") && !strings.Contains(got, "2.0") {
		t.Errorf("the row of gemini-2.5-flash (healthy) says its last failure was %q: the retired gemini-2.0-flash's answer, shown as the new model's", got)
	}
}

// Operator review 51b. Two replicas share health through Redis; Redis goes
// away. Each replica serves from its own state (docs/scale.md: /v1/health's
// state says {"store":"redis","shared":false,"local_since":…}), so replica A,
// which met OpenAI's insufficient_quota, shows account openai cooling and
// replica B shows it healthy. docs/console.md promises "health is shared
// through Redis and every replica shows all of it"; during the outage the
// console's Health page neither says that it is not (its API,
// /ui/api/health, does not even carry /v1/health's state) nor that what it
// shows is this replica's alone: the operator reads two contradicting pages
// with nothing to tell which to believe.
func TestConsoleSaysHealthIsNotSharedDuringARedisOutage_op51b(t *testing.T) {
	b := newBrowser(t)
	rs := redistest.Start(t)
	fakes := map[string]*upstreamtest.Server{
		"oa": upstreamtest.New(func(_ int, _ upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Status: 429, Body: corpusBody(t, "openai-insufficient-quota-429")}
		}),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	yaml := `
state: {store: redis, url: "` + rs.URL() + `", timeout: 200ms}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: r, targets: [gpt]}
`
	a := startGateway(t, yaml, fakes)
	other := startGateway(t, yaml, fakes)
	other.chat(t, "missing-model") // both have talked to Redis once
	rs.Kill()
	if _, st := a.chat(t, "r"); st != 429 {
		t.Fatalf("the capped account answered %d", st)
	}
	if h := fetchText(t, a.URL+"/v1/health"); !strings.Contains(h, `"shared":false`) || !strings.Contains(h, `"cooling_class":"quota"`) {
		t.Fatalf("replica A does not have account openai cooling on local state: %s", h)
	}
	// Replica B serves nothing; an operator opens its console.
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(other.URL+"/ui/health"))
	acct := `[...document.querySelectorAll('#accounts tbody tr')].find(r => r.cells[0].textContent === 'openai')`
	b.mustWait(t, "account openai shows", `!!`+acct)
	b.screenshot(t, "op51b-redis-outage-other-replica")
	state := eval[string](t, b, acct+`.querySelector('td[data-label="State"]').textContent`)
	text := eval[string](t, b, `document.querySelector('main') ? document.querySelector('main').innerText : document.body.innerText`)
	low := strings.ToLower(text)
	if state == "healthy" && !strings.Contains(low, "redis") && !strings.Contains(low, "not shared") && !strings.Contains(low, "this replica") {
		t.Errorf("during a Redis outage replica B's Health page shows account openai %q (replica A has it cooling for quota) and says nothing about health not being shared (page text %d bytes, no \"redis\", \"not shared\" or \"this replica\")", state, len(text))
	}
}

// Round 55: a Redis restarted empty came back with no word on the Health
// page (nor on /v1/health): the operator saw healthy tables and could not
// tell that the fleet had lost, and written back, what it shared. The
// summary now says when this replica found it.
func TestConsoleSaysRedisLostItsState(t *testing.T) {
	b := newBrowser(t)
	rs := redistest.Start(t)
	fakes := map[string]*upstreamtest.Server{
		"oa": upstreamtest.New(func(_ int, _ upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Status: 429, Body: corpusBody(t, "openai-insufficient-quota-429")}
		}),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	a := startGateway(t, `
state: {store: redis, url: "`+rs.URL()+`", timeout: 200ms}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
routes:
  - {name: r, targets: [gpt]}
`, fakes)
	if _, st := a.chat(t, "r"); st != 429 { // account openai cools, in Redis
		t.Fatalf("the capped account answered %d", st)
	}
	rs.Kill()
	rs.Start(t) // empty: nothing saved
	deadline := time.Now().Add(15 * time.Second)
	for !strings.Contains(fetchText(t, a.URL+"/v1/health"), `"lost_at":"`) {
		if time.Now().After(deadline) {
			t.Fatalf("/v1/health does not say Redis lost its state: %s", fetchText(t, a.URL+"/v1/health"))
		}
		time.Sleep(250 * time.Millisecond)
	}
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(a.URL+"/ui/health"))
	b.mustWait(t, "the summary shows", `document.querySelector('#health-summary').textContent.length > 0`)
	b.screenshot(t, "r55-redis-lost-its-state")
	if s := eval[string](t, b, `document.querySelector('#health-summary').textContent`); !strings.Contains(s, "Redis lost its state at") {
		t.Errorf("the Health page's summary does not say Redis lost its state: %q", s)
	}
}
