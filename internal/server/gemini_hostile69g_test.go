package server_test

import (
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 69g: the Gemini door as a hostile client and a hostile upstream.

// A ?key= is taken out of the URL before anything reads the request
// (docs/security.md): the mux's own redirect of a path it cleans (a "..",
// a doubled slash) read it first and put the key in its Location, before
// the door's handler ever ran; and a key spelled with an escape in its
// name (%6Bey, which Google and Go's query reader both read as key) was
// seen as a key by the routing but never taken out (a 401, the key left
// in the URL).
func TestHostile69gKeyInTheURLNeverInARedirect(t *testing.T) {
	gw := geminiGateway(t)
	noFollow := &http.Client{Timeout: time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, target := range []string{
		"/v1beta/models/x/../to-gem:generateContent?key=gk-two",
		"//v1beta/models/to-gem:generateContent?key=gk-two",
		"/v1beta/models/x/../to-gem:generateContent?alt=sse;key=gk-two",
		"/v1beta/models/x/../to-gem:generateContent?%6Bey=gk-two",
		"/v1/models/x/../to-gem:generateContent?alt=sse&key=gk-two",
	} {
		req, _ := http.NewRequest(http.MethodPost, gw.url+target, strings.NewReader(geminiHello))
		req.Header.Set("Content-Type", "application/json")
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		for name, v := range resp.Header {
			if strings.Contains(strings.Join(v, " "), "gk-two") {
				t.Errorf("%s: %d, the client's ?key= in the answer's %s: %q (before: a 307 whose Location held it)", target, resp.StatusCode, name, v)
			}
		}
		if strings.Contains(string(b), "gk-two") {
			t.Errorf("%s: the key in the body: %s", target, b)
		}
	}
	// %6Bey is key to every reader: admitted as it, and gone from the URL.
	resp, body := postWith(t, gw.url, "/v1beta/models/to-gem:generateContent?%6Bey=gk-two", geminiHello)
	if resp.StatusCode != 200 {
		t.Errorf("?%%6Bey=: %d %s, want 200 (before: 401, the key read as one by the routing and left in the URL)", resp.StatusCode, body)
	}
}

// A passthrough answer without usageMetadata (a relay, a Gemini-compatible
// server) was charged its prompt alone: a whole native answer's output was
// estimated only at the Completions door, and 10 KB of text counted 0
// output tokens against the key's budget. It counts the answer's text, as
// a translated answer without usage does (hostile review 51b).
func TestHostile69gPassthroughWithoutUsageCountsItsOutput(t *testing.T) {
	text := strings.Repeat("word ", 2000)
	g := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"candidates":[{"content":{"role":"model","parts":[{"text":"` + text + `"}]},"finishReason":"STOP","index":0}],"modelVersion":"gemini-2.0-flash-001"}`}
	})
	t.Cleanup(g.Close)
	cfg := strings.NewReplacer("{p}", g.URL, "{an}", g.URL, "{g}", g.URL, "{down}", g.URL).Replace(geminiDoorCfg)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{Decisions: recs})
	resp, body := geminiPost(t, url, "/v1beta/models/to-gem:generateContent", `{"contents":[{"role":"user","parts":[{"text":"write"}]}]}`)
	if resp.StatusCode != 200 || !strings.Contains(body, "word word") {
		t.Fatalf("%d %.300s", resp.StatusCode, body)
	}
	d := recs.Wait(t, 1)
	if len(d.Attempts) != 1 || d.Attempts[0].Estimate == nil || d.Attempts[0].Estimate.OutputTokens < 2000 {
		t.Errorf("estimate %+v, want about 2,500 output tokens for 10 KB of text (before: 0)", d.Attempts[0].Estimate)
	}
}

const hostile69gAllowanceCfg = `
max_body_bytes: 1048576
max_inflight_body_bytes: 4194304
providers:
  - {name: g, dialect: gemini, base_url: "{g}", api_key: sk-gem}
targets:
  - {name: gem, model: gemini-2.0-flash, providers: [g]}
routes:
  - {name: r, targets: [gem]}
`

// A passthrough body holding "detour1." anywhere (a sealed thought
// signature, or a client's text) was decoded whole into Go maps and
// encoded again to unseal it, on the handler's stack and counted by
// nothing: ~40 times the body for one-letter parts, for every such
// request at once, past max_inflight_body_bytes. It is taken from the
// allowance as a translation is: beside another request's overdraft the
// attempt is not made; with room it is.
func TestHostile69gUnsealingIsCounted(t *testing.T) {
	var calls atomic.Int32
	g := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		calls.Add(1)
		return upstreamtest.Step{Body: geminiAnswer}
	})
	t.Cleanup(g.Close)
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, strings.NewReplacer("{g}", g.URL).Replace(hostile69gAllowanceCfg)), app.Options{})
	unit := `{"text":"a"},`
	body := `{"contents":[{"role":"user","parts":[{"text":"detour1.x"},` + strings.TrimSuffix(strings.Repeat(unit, (300<<10)/len(unit)), ",") + `]}]}`

	giveBack := a.Server.Overdraw()
	resp, out := postWith(t, url, "/v1beta/models/r:generateContent", body)
	giveBack()
	if resp.StatusCode != http.StatusServiceUnavailable || calls.Load() != 0 {
		t.Errorf("beside another request's overdraft: %d, %d upstream calls, want 503, the attempt not made (before: 200, its ~12 MB decode counted by nothing): %.300s", resp.StatusCode, calls.Load(), out)
	}
	resp, out = postWith(t, url, "/v1beta/models/r:generateContent", body)
	if resp.StatusCode != 200 || out != geminiAnswer {
		t.Errorf("with room: %d %.300s", resp.StatusCode, out)
	}
	if !drained(a.Server) {
		t.Errorf("after the requests: %d bytes held, overdraft held %v", a.Server.BodiesHeld(), a.Server.Overdrawn())
	}
}
