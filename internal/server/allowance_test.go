package server_test

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/server"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A translation that does not fit in max_inflight_body_bytes beside the
// other requests runs as the allowance's one overdraft; while another
// request holds it, the translation is refused (docs/config.md,
// max_inflight_body_bytes). The overdraft is held only while a translation
// runs, so these tests take it themselves (Server.Overdraw) to stand for a
// translation in progress.

const overdraftCfg = `
max_body_bytes: 1048576
max_inflight_body_bytes: 4194304
providers:
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: sk-test}
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-test}
targets:
  - {name: claude, model: claude-x, providers: [an]}
  - {name: b, model: model-b, providers: [p]}
routes:
  - {name: r, targets: {targets}}
`

// overdraftConfig is overdraftCfg over the Anthropic upstream an and the
// OpenAI one p, its route r walking targets ("[claude, b]", with any route
// option after it).
func overdraftConfig(an, p *upstreamtest.Server, targets string) string {
	return strings.NewReplacer("{an}", an.URL, "{p}", p.URL, "{targets}", targets).Replace(overdraftCfg)
}

// tooCostly is a list of 150,000 numbers (300 KB): translated, each
// reserves a structure's 1,792 bytes, 269 MB in all, past the cap of a
// gateway whose max_body_bytes is 1 MiB (128 MiB).
var tooCostly = strings.TrimSuffix(strings.Repeat("0,", 150_000), ",")

// overdraftGateway starts a gateway over an Anthropic and an OpenAI
// upstream that both answer.
func overdraftGateway(t *testing.T) (url string, a *app.App, an, p *upstreamtest.Server, recs *gatewaytest.Records) {
	an = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: claudeJSON()} })
	p = upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("model-b", "b")}
	})
	t.Cleanup(an.Close)
	t.Cleanup(p.Close)
	recs = gatewaytest.NewRecords()
	url, a = gatewaytest.Start(t, gatewaytest.Config(t, overdraftConfig(an, p, "[claude, b]")), app.Options{Decisions: recs})
	return url, a, an, p, recs
}

// drained waits (a little) until the server holds nothing of the allowance.
func drained(s *server.Server) bool {
	for deadline := time.Now().Add(5 * time.Second); s.BodiesHeld() != 0 || s.Overdrawn(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			return false
		}
	}
	return true
}

func post(t *testing.T, url, path, body string) (*http.Response, string) {
	t.Helper()
	return postWith(t, url, path, body, "X-Api-Key", "k")
}

// postWith posts body to url+path as JSON with the headers (name, value
// pairs) and returns the response and its whole body.
func postWith(t *testing.T, url, path, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	c := &http.Client{Timeout: time.Minute}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// blocks is a request body for path of about n bytes of one-letter blocks:
// its translation costs ~20 times the 4 MiB allowance at 300 KiB.
func blocks(path, model string, n int) string {
	switch path {
	case "/v1/messages":
		unit := `{"type":"text","text":"a"},`
		return `{"model":"` + model + `","max_tokens":16,"messages":[{"role":"user","content":[` + strings.TrimSuffix(strings.Repeat(unit, n/len(unit)), ",") + `]}]}`
	case "/v1/responses":
		unit := `{"role":"user","content":"a"},`
		return `{"model":"` + model + `","input":[` + strings.TrimSuffix(strings.Repeat(unit, n/len(unit)), ",") + `]}`
	}
	unit := `{"role":"user","content":"a"},`
	return `{"model":"` + model + `","messages":[` + strings.TrimSuffix(strings.Repeat(unit, n/len(unit)), ",") + `]}`
}

func TestDoorTranslationPastTheAllowanceWaitsForTheOverdraft(t *testing.T) {
	url, a, _, p, _ := overdraftGateway(t)
	for _, path := range []string{"/v1/messages", "/v1/responses"} {
		body := blocks(path, "b", 300<<10)
		giveBack, before := a.Server.Overdraw(), p.Calls()
		resp, out := post(t, url, path, body)
		if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !strings.Contains(out, "max_inflight_body_bytes") {
			t.Errorf("%s past the allowance while another request overdraws it: %d (Retry-After %q), want 503 with Retry-After 1 naming the setting: %.300s",
				path, resp.StatusCode, resp.Header.Get("Retry-After"), out)
		}
		if p.Calls() != before {
			t.Errorf("%s: the refused request reached the upstream", path)
		}
		giveBack()
		if resp, out := post(t, url, path, body); resp.StatusCode != http.StatusOK {
			t.Errorf("%s with the overdraft free: %d: %.300s", path, resp.StatusCode, out)
		}
	}
	if !drained(a.Server) {
		t.Errorf("after the requests: %d bytes held, overdraft held %v", a.Server.BodiesHeld(), a.Server.Overdrawn())
	}
}

// An attempt whose translation into Anthropic's dialect does not fit is
// not made — nothing sent, nothing cooled, class unknown with evidence
// allowance — and the walk moves on; with nothing else the client gets 503
// with Retry-After, as from the front.
func TestAttemptTranslationPastTheAllowanceMovesOn(t *testing.T) {
	url, a, an, _, recs := overdraftGateway(t)
	body := blocks("/v1/chat/completions", "r", 300<<10)
	giveBack := a.Server.Overdraw()
	resp, out := post(t, url, "/v1/chat/completions", body)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("X-Detour-Target") != "b" {
		t.Errorf("route [claude, b]: %d from %q, want 200 from b: %.200s", resp.StatusCode, resp.Header.Get("X-Detour-Target"), out)
	}
	d := recs.Wait(t, 1)
	if len(d.Attempts) != 2 || d.Attempts[0].Class != classify.Unknown.String() || d.Attempts[0].Evidence != "allowance" {
		t.Errorf("the first attempt's record: %+v, want unknown with evidence allowance", d.Attempts)
	}
	resp, out = post(t, url, "/v1/chat/completions", blocks("/v1/chat/completions", "claude", 300<<10))
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") != "1" || !strings.Contains(out, "inflight_body_limit") {
		t.Errorf("target claude alone: %d (Retry-After %q), want 503, Retry-After 1, code inflight_body_limit: %.300s",
			resp.StatusCode, resp.Header.Get("Retry-After"), out)
	}
	if an.Calls() != 0 {
		t.Errorf("a translation that did not fit was sent (%d calls)", an.Calls())
	}
	giveBack()
	resp, out = post(t, url, "/v1/chat/completions", blocks("/v1/chat/completions", "claude", 300<<10))
	if resp.StatusCode != http.StatusOK {
		t.Errorf("with the overdraft free: %d: %.300s", resp.StatusCode, out)
	}
	if !drained(a.Server) {
		t.Errorf("after the requests: %d bytes held, overdraft held %v", a.Server.BodiesHeld(), a.Server.Overdrawn())
	}
}

// The body an attempt translated for Anthropic is held while the attempt
// runs, so it is counted for as long (review 35a: it was given back as
// soon as the request was built).
func TestAttemptTranslatedBodyIsCountedWhileTheAttemptRuns(t *testing.T) {
	release, sent := make(chan struct{}), make(chan int, 1)
	an := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		sent <- len(r.Body)
		<-release
		return upstreamtest.Step{Body: claudeJSON()}
	})
	t.Cleanup(an.Close)
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, overdraftConfig(an, an, "[claude, b]")), app.Options{})
	body := `{"model":"claude","messages":[{"role":"user","content":"` + strings.Repeat("x", 64<<10) + `"}]}`
	done := make(chan int, 1)
	go func() {
		resp, _ := post(t, url, "/v1/chat/completions", body)
		done <- resp.StatusCode
	}()
	n := <-sent
	if held := a.Server.BodiesHeld(); held < int64(len(body)+n) {
		t.Errorf("while the attempt runs the allowance holds %d bytes, want at least the body (%d) and its translation (%d)", held, len(body), n)
	}
	close(release)
	if s := <-done; s != http.StatusOK {
		t.Fatalf("status %d", s)
	}
	for deadline := time.Now().Add(5 * time.Second); a.Server.BodiesHeld() != 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond) // the handler gives it back as it returns, after the answer
	}
	if a.Server.BodiesHeld() != 0 {
		t.Errorf("after the request: %d bytes held", a.Server.BodiesHeld())
	}
}
