package browser

import (
	"bufio"
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator opens a streamed request whose upstream stalled after its
// first words: the console must say the client already had part of the
// answer and then an error event — not that "the client got this answer",
// which reads as a clean error the client could act on (review 39f).
func TestConsoleSaysAStreamCutAfterItBegan_review39f(t *testing.T) {
	b := newBrowser(t)
	evs := upstreamtest.ChatStream("gpt-4o", "Hello", " wor")
	fake := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: evs[:3], Stall: true}))
	t.Cleanup(fake.Close)
	g := startGateway(t, `providers:
  - {name: stally, dialect: openai, base_url: "{stally}", api_key: k-stally-0001, idle_timeout: 300ms}
targets:
  - {name: gpt, model: gpt-4o, providers: [stally]}
routes:
  - {name: talk, targets: [gpt]}
`, map[string]*upstreamtest.Server{"stally": fake})

	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions",
		bytes.NewReader([]byte(`{"model":"talk","stream":true,"messages":[{"role":"user","content":"hi"}]}`)))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var got strings.Builder
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		got.WriteString(sc.Text() + "\n")
	}
	resp.Body.Close()
	id := resp.Header.Get("X-Detour-Decision")
	if resp.StatusCode != 200 || !strings.Contains(got.String(), "Hello") || !strings.Contains(got.String(), "event: error") {
		t.Fatalf("the client should get the first words, then an error event; got %d:\n%s", resp.StatusCode, got.String())
	}

	b.do(t, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(g.URL+"/ui/decisions?id="+id))
	b.mustWait(t, "the detail", `!document.querySelector('#detail').hidden && document.querySelectorAll('#detail .steps > li').length === 1`)
	action := eval[string](t, b, `document.querySelector('#detail .steps > li .action').textContent`)
	if strings.Contains(action, "the client got this answer") || !strings.Contains(action, "stream had begun") {
		t.Errorf("the cut stream's last step reads %q: it must say the stream had begun and the client got an error event after its text", action)
	}
	b.screenshot(t, "decision-stream-cut-review39f")
	if errs := b.consoleErrors(); len(errs) > 0 {
		t.Errorf("page errors: %q", errs)
	}
}
