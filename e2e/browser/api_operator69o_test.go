package browser

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Operator review 69l: a route serves OpenAI, Anthropic, Responses and
// Gemini clients at once, and the Decisions table did not say which door a
// request came through, so an operator could not tell which clients a
// failure hit. Each ended request now names its api beside the route, the
// card says it, and the filter form keeps one door's requests (an address
// naming a door the console does not know asks for nothing).
func TestConsoleShowsTheDoor_operator69o(t *testing.T) {
	b := newBrowser(t)
	fakes := map[string]*upstreamtest.Server{
		"up": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "hello")})),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
providers:
  - {name: up, dialect: openai, base_url: "{up}", api_key: `+secret+`}
  - {name: gone, dialect: openai, base_url: "http://127.0.0.1:1", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [up]}
  - {name: dead, model: gpt-4o, providers: [gone]}
routes:
  - {name: shared, targets: [gpt]}
  - {name: broken, targets: [dead]}
`, fakes)
	post := func(path, body string) (string, int) {
		t.Helper()
		resp, err := http.Post(g.URL+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.Header.Get("X-Detour-Decision"), resp.StatusCode
	}
	doors := map[string]string{} // decision id → the api its row must say
	for _, c := range []struct{ api, path, body string }{
		{"chat", "/v1/chat/completions", `{"model":"shared","messages":[{"role":"user","content":"hi"}]}`},
		{"messages", "/v1/messages", `{"model":"shared","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`},
		{"responses", "/v1/responses", `{"model":"shared","input":"hi"}`},
		{"gemini", "/v1beta/models/shared:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`},
		{"gemini", "/v1beta/models/broken:generateContent", `{"contents":[{"role":"user","parts":[{"text":"hi"}]}]}`},
	} {
		id, status := post(c.path, c.body)
		if id == "" {
			t.Fatalf("%s: %d and no decision id", c.path, status)
		}
		doors[id] = c.api
	}

	rows := `document.querySelectorAll('#decisions tbody tr')`
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/decisions"))
	b.mustWait(t, "the five records", rows+`.length === 5`)
	if head := eval[string](t, b, `[...document.querySelectorAll('#decisions thead th')].map((th) => th.textContent).join(' ')`); !strings.Contains(head, "Route API Outcome") {
		t.Errorf("the table's head reads %q, want an API column beside Route", head)
	}
	got := eval[map[string]string](t, b, `Object.fromEntries([...`+rows+`].map((tr) => [tr.dataset.id, tr.cells[2].textContent]))`)
	for id, api := range doors {
		if got[id] != api {
			t.Errorf("request %s's API cell reads %q, want %q", id, got[id], api)
		}
	}
	if n := eval[int](t, b, `document.querySelectorAll('#filters select[name=api] option').length`); n != 7 {
		t.Errorf("the API filter offers %d options, want any and the six doors", n)
	}
	b.screenshot(t, "decisions-api")

	// The filter form: Gemini's requests only, the failed one among them.
	eval[bool](t, b, `(document.querySelector('#filters select[name=api]').value = 'gemini', document.querySelector('#filters').requestSubmit(), true)`)
	b.mustWait(t, "Gemini's two records", `location.search === '?route=&target=&class=&outcome=&api=gemini&client=' && `+rows+`.length === 2`)
	cells := eval[[]string](t, b, `[...`+rows+`].map((tr) => tr.cells[2].textContent + ' ' + tr.cells[1].textContent)`)
	if strings.Join(cells, ",") != "gemini broken,gemini shared" {
		t.Errorf("api=gemini lists %q", cells)
	}
	if v := eval[string](t, b, `document.querySelector('#filters select[name=api]').value`); v != "gemini" {
		t.Errorf("the form's API reads %q after filtering", v)
	}
	// The card says the door too.
	b.do(t, chromedp.Click(chromedp.CSS(`#decisions tbody tr a`)))
	b.mustWait(t, "the card", `!document.querySelector('#detail').hidden`)
	if meta := eval[string](t, b, `document.querySelector('#detail dl.meta').textContent`); !strings.Contains(meta, "APIgemini") {
		t.Errorf("the card reads %q, want API gemini", meta)
	}
	b.screenshot(t, "decisions-api-gemini")

	// A door the console does not know is not asked for (hostile 68d):
	// every record, and no banner.
	b.do(t, chromedp.Navigate(g.URL+"/ui/decisions?api="+url.QueryEscape("URGENT: rotate your key")))
	b.mustWait(t, "every record", rows+`.length === 5`)
	if text := eval[string](t, b, `document.body.innerText`); strings.Contains(text, "URGENT") {
		t.Errorf("the page writes an unknown api's words")
	}
}
