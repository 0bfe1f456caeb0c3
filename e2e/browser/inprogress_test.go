package browser

import (
	"bufio"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator whose users say "it hangs" opens Decisions to see what is
// being served right now: a record is written only when a request ends, so
// the page lists the requests in progress, oldest first, with the attempt
// each is making (here the third: the first target's server error is
// retried once, then the route moves on to the second), its door, its client key's name and how long it has run, and drops
// a request from the list once it ends and joins the records below.
func TestConsoleListsRequestsInProgress(t *testing.T) {
	b := newBrowser(t)
	parts := make([]string, 12)
	for i := range parts {
		parts[i] = "word "
	}
	fakes := map[string]*upstreamtest.Server{
		"down": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 500, Body: `{"error":{"message":"internal error"}}`})),
		"slow": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", parts...), EventDelay: 300 * time.Millisecond})),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
retry: {max_wait: 0s}
client_keys: [{name: team-a, key: "sk-detour-team-a-7Qp2"}]
providers:
  - {name: down, dialect: openai, base_url: "{down}", api_key: `+secret+`}
  - {name: slow, dialect: openai, base_url: "{slow}", api_key: `+secret+`}
targets:
  - {name: first, model: gpt-4o, providers: [down]}
  - {name: second, model: gpt-4o, providers: [slow]}
routes:
  - {name: deep, targets: [first, second], fallback_on: [server_error]}
`, fakes)

	ended := make(chan string, 1)
	go func() {
		req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
			strings.NewReader(`{"model":"deep","stream":true,"messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer sk-detour-team-a-7Qp2")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			ended <- err.Error()
			return
		}
		defer resp.Body.Close()
		last := ""
		for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
			if sc.Text() != "" {
				last = sc.Text()
			}
		}
		ended <- last
	}()

	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/decisions"))
	row := `document.querySelector('#inprogress tbody tr')`
	col := func(label string) string { return row + `.querySelector('td[data-label="` + label + `"]').textContent` }
	b.mustWait(t, "the stream in progress at its third attempt", `!!`+row+` && `+col("Attempt now")+`.startsWith('#3 second/slow for ')`)
	for label, want := range map[string]string{"Route": "deep", "API": "chat · stream", "Client": "team-a"} {
		if got := eval[string](t, b, col(label)); got != want {
			t.Errorf("%s reads %q, want %q", label, got, want)
		}
	}
	if got := eval[string](t, b, `document.querySelector('#inprogress-count').textContent`); got != "(1)" {
		t.Errorf("the count reads %q", got)
	}
	if eval[bool](t, b, `!document.querySelector('#inprogress-empty').hidden`) {
		t.Error("the page says nothing is in progress while a stream runs")
	}
	if strings.Contains(eval[string](t, b, `document.body.textContent`), "7Qp2") {
		t.Error("the client key reached the page")
	}
	b.screenshot(t, "decisions-in-progress")

	select {
	case last := <-ended:
		if last != "data: [DONE]" {
			t.Fatalf("the stream ended with %q", last)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the stream never ended")
	}
	b.mustWait(t, "the ended request leaves the list", `!`+row+` && !document.querySelector('#inprogress-empty').hidden`)
	b.mustWait(t, "its record below", `document.querySelectorAll('#decisions tbody tr').length === 1`)
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("page errors: %q", errs)
	}
}
