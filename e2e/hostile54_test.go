package e2e

import (
	"encoding/json"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// hostile54: an upstream's words in an alert's `text`.
//
// docs/config.md (alerts.webhook) says `text` is "a one-line summary for
// Slack-style hooks", and Slack reads a webhook's `text` as mrkdwn: "Slack
// uses &, <, and > as control characters for special parsing in text
// objects, so they must be converted to HTML entities if they're not going
// to be used for their parsing purpose"
// (https://api.slack.com/reference/surfaces/formatting#escaping). `<!channel>`
// notifies every member of the channel, `<https://x|label>` is a link whose
// address the reader does not see, `<@U…>` mentions a user.
//
// A hostile (or compromised) OpenAI-compatible upstream answers with the
// real insufficient_quota envelope (classify/testdata/corpus/
// openai-insufficient-quota-429.json) whose message carries mrkdwn control
// sequences. The page is a quota page, as it should be; but its `text`
// quotes the upstream's words with strconv.Quote, which leaves < > & as they
// are: the upstream pages @channel and plants a disguised link in the
// operators' channel.
func TestHostile54AlertTextCarriesUpstreamSlackMarkup(t *testing.T) {
	const words = "You exceeded your current quota, please check your plan and billing details. <!channel> <https://billing.example.invalid/restore|Restore service at platform.openai.com> & <@U024BE7LH>"
	body, _ := json.Marshal(map[string]any{"error": map[string]any{
		"message": words, "type": "insufficient_quota", "param": nil, "code": "insufficient_quota",
	}})
	h := newHook(t)
	fs := fakes(t, map[string]upstreamtest.Script{
		"p":  script(ok("model-a", "a")),
		"p2": script(upstreamtest.Step{Status: 429, Body: string(body)}),
		"q":  script(ok("model-b", "q")),
	})
	g := startEcho(t, h.URL, fs)
	g.post(t, "r2", "").wantStatus(t, 200)
	deadline := time.Now().Add(20 * time.Second)
	for len(h.alerts()) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	got := h.alerts()
	if len(got) == 0 {
		t.Fatal("the quota answer never paged")
	}
	p := got[0]
	if p["class"] != "quota" {
		t.Fatalf("alert %v: want class quota", p)
	}
	text, _ := p["text"].(string)
	t.Logf("text: %s", text)
	for _, bad := range []string{"<!channel>", "<https://", "<@U"} {
		if strings.Contains(text, bad) {
			t.Errorf("the alert's text (for Slack-style hooks) carries the upstream's %q unescaped: %s", bad, text)
		}
	}
}

// hostile54: reloads while streams are in flight leave nothing behind — no
// goroutine per reload, a removed client key refused at once while the
// request it started finishes on the configuration it started with.
func TestHostile54ReloadsUnderLoadLeakNothing(t *testing.T) {
	const cfg = `
client_keys:
  - {name: team-a, key: sk-h54-team-a-0000000000000000, max_concurrent: 8}
  - {name: team-b, key: sk-h54-team-b-0000000000000000, max_concurrent: 8}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: model-a, providers: [p]}
routes:
  - {name: r, targets: [a]}
`
	fs := fakes(t, map[string]upstreamtest.Script{"p": func(int, upstreamtest.Request) upstreamtest.Step { return okStream("model-a", "hello there") }})
	g := start(t, cfg, fs)
	full := strings.ReplaceAll(cfg, "{p}", fs["p"].URL)
	withoutB := strings.Replace(full, "  - {name: team-b, key: sk-h54-team-b-0000000000000000, max_concurrent: 8}\n", "", 1)
	post := func(key string) int {
		return g.raw(t, "POST", "/v1/chat/completions", `{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`,
			"Authorization", "Bearer "+key).Status
	}
	for range 5 {
		post("sk-h54-team-a-0000000000000000")
	}
	runtime.GC()
	time.Sleep(200 * time.Millisecond)
	before := runtime.NumGoroutine()
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				post("sk-h54-team-a-0000000000000000")
			}
		}()
	}
	for i := range 200 {
		c := full
		if i%2 == 0 {
			c = withoutB
		}
		if err := g.app.Reload(gatewaytest.Config(t, c)); err != nil {
			t.Fatal(err)
		}
		if i%2 == 0 {
			if st := post("sk-h54-team-b-0000000000000000"); st != 401 {
				t.Fatalf("reload %d removed team-b, its key got %d", i, st)
			}
		}
	}
	close(stop)
	wg.Wait()
	time.Sleep(500 * time.Millisecond)
	runtime.GC()
	after := runtime.NumGoroutine()
	t.Logf("goroutines before %d, after 200 reloads under load %d", before, after)
	if after > before+20 {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Errorf("goroutines grew from %d to %d over 200 reloads:\n%.6000s", before, after, buf[:n])
	}
}
