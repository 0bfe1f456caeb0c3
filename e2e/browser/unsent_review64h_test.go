package browser

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator opens a request whose first target could not take it: the
// attempt Detour never sent reads "not sent", with Detour's reason, not as
// an HTTP 400 the provider gave with no words (review 64h).
func TestConsoleSaysAnAttemptWasNotSent(t *testing.T) {
	b := newBrowser(t)
	fakes := map[string]*upstreamtest.Server{
		"anthropic": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: `{"never":"called"}`})),
		"openai":    upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o-audio-preview", "heard you")})),
	}
	for _, f := range fakes {
		t.Cleanup(f.Close)
	}
	g := startGateway(t, `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: `+secret+`}
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic]}
  - {name: gpt, model: gpt-4o-audio-preview, providers: [openai]}
routes:
  - {name: r, targets: [claude, gpt]}
`, fakes)
	body := `{"model":"r","messages":[{"role":"user","content":[{"type":"text","text":"What is in this recording?"},` +
		`{"type":"input_audio","input_audio":{"data":"UklGRg==","format":"wav"}}]}]}`
	resp, err := http.Post(g.URL+"/v1/chat/completions", "application/json", bytes.NewReader([]byte(body)))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Detour-Decision")
	if resp.StatusCode != 200 || id == "" {
		t.Fatalf("client got %d, decision %q", resp.StatusCode, id)
	}
	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/decisions?id="+id))
	b.mustWait(t, "the detail", `!document.querySelector('#detail').hidden && !!document.querySelector('#detail li.step')`)
	first := `document.querySelector('#detail li.step')`
	if got := eval[string](t, b, first+`.querySelector('.verdict').textContent`); !strings.HasPrefix(got, "not sent") {
		t.Errorf("the untranslated attempt's verdict reads %q, want it not sent", got)
	}
	quote := eval[string](t, b, first+`.querySelector('blockquote').textContent`)
	if !strings.HasPrefix(quote, "Detour's reason: Detour could not translate the request for anthropic") {
		t.Errorf("the untranslated attempt's message reads %q, want Detour's reason", quote)
	}
	b.screenshot(t, "decision-not-sent")
}
