package server_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A Messages client that streams gets the answer's usage in message_delta
// (Anthropic's SDKs read it as the final count) even when the route's
// Anthropic target answers the stream request with a whole Message: the
// gateway turns it into a stream, and its usage must reach the client.
func TestMessagesNativeWholeAnswerStreamedKeepsUsage(t *testing.T) {
	url, _, an, p, recs := overdraftGateway(t) // route r: [claude, b]; claude answers a whole Message
	resp, body := post(t, url, "/v1/messages", `{"model":"r","max_tokens":8,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "event: message_delta") {
		t.Fatalf("stream: %d %.500s", resp.StatusCode, body)
	}
	_, delta, _ := strings.Cut(body, "event: message_delta")
	if !strings.Contains(delta, `"output_tokens":1`) || !strings.Contains(delta, `"input_tokens":3`) {
		t.Errorf("message_delta does not carry Claude's usage (3 in, 1 out): %s", body)
	}
	if an.Calls() != 1 || p.Calls() != 0 {
		t.Errorf("calls: %d, %d", an.Calls(), p.Calls())
	}
	recs.Wait(t, 1)
}

// An operator relies on the request-body allowance returning to zero
// however requests end. A route that begins with a responses: true target
// translates in the walk (dispatch.Native.Translate), within a reservation
// the request keeps until it ends: after a burst of such requests — the
// native target failing or answering, the chat target streaming or not,
// bodies the translation refuses, clients that leave — nothing is held.
func TestResponsesLazyTranslationReleasesTheAllowance(t *testing.T) {
	var mu sync.Mutex
	calls := 0
	nat := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		mu.Lock()
		calls++
		c := calls
		mu.Unlock()
		if c%3 != 0 {
			return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}
		}
		return upstreamtest.Step{Body: `{"id":"resp_1","object":"response","status":"completed","output":[],"usage":{"input_tokens":3,"output_tokens":1}}`}
	})
	chat := upstreamtest.New(func(c int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: upstreamtest.ChatStream("m", "a", "b", "c"), EventDelay: time.Millisecond}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "ok"), Delay: time.Duration(c%3) * time.Millisecond}
	})
	t.Cleanup(nat.Close)
	t.Cleanup(chat.Close)
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, `
max_body_bytes: 1048576
max_inflight_body_bytes: 4194304
providers:
  - {name: n, dialect: openai, base_url: "`+nat.URL+`", api_key: sk-n, responses: true}
  - {name: c, dialect: openai, base_url: "`+chat.URL+`", api_key: sk-c}
targets:
  - {name: nt, model: gpt-5, providers: [n]}
  - {name: ct, model: gpt-4o, providers: [c]}
routes:
  - {name: r, targets: [nt, ct]}
`), app.Options{Decisions: decision.Discard})
	unit := `{"role":"user","content":"a"},`
	statuses := burst(url, 240, 16, func(i int) (string, string, time.Duration) {
		stream := []string{"false", "true"}[i%2]
		input := "[" + strings.TrimSuffix(strings.Repeat(unit, []int{1, 200, 5000}[(i/2)%3]), ",") + "]"
		if i%7 == 0 {
			input = `[{"type":"bogus"}]` // the translation refuses it: the chat target is passed over
		}
		var cut time.Duration
		if i%5 == 0 {
			cut = time.Duration(1+i%3000) * time.Microsecond
		}
		return "/v1/responses", `{"model":"r","stream":` + stream + `,"input":` + input + `}`, cut
	})
	t.Logf("statuses %v", statuses)
	if !drained(a.Server) {
		t.Fatalf("after the burst the allowance holds %d bytes (overdrawn %v), want 0", a.Server.BodiesHeld(), a.Server.Overdrawn())
	}
}

// A Messages client on a route that begins with Claude and continues cut
// streams relies on a stream the walk translated (Claude overloaded, the
// translation made at the OpenAI target) being continued like any other:
// cut after its first words, the next target continues it from the same
// translation, and the client gets one Message with the whole text and
// usage. The request's translation is made once.
func TestMessagesLazyTranslationContinuesACutStream(t *testing.T) {
	an := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`}))
	ev := upstreamtest.ChatStream("model-b", "Hello", " world")
	b1 := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: ev[:2], Cut: true}))
	b2 := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: ev}))
	for _, s := range []*upstreamtest.Server{an, b1, b2} {
		t.Cleanup(s.Close)
	}
	recs := gatewaytest.NewRecords()
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "`+an.URL+`", api_key: sk-test}
  - {name: p1, dialect: openai, base_url: "`+b1.URL+`", api_key: sk-test}
  - {name: p2, dialect: openai, base_url: "`+b2.URL+`", api_key: sk-test}
targets:
  - {name: claude, model: claude-x, providers: [an]}
  - {name: b1, model: model-b, providers: [p1]}
  - {name: b2, model: model-b, providers: [p2]}
routes:
  - {name: r, targets: [claude, b1, b2], on_stream_cut: continue}
`), app.Options{Decisions: recs})
	resp, body := post(t, url, "/v1/messages", `{"model":"r","max_tokens":64,"stream":true,"messages":[{"role":"user","content":"hi"}]}`)
	var text strings.Builder
	for _, l := range strings.Split(body, "\n") {
		if _, d, ok := strings.Cut(l, `"text_delta","text":"`); ok {
			text.WriteString(strings.TrimSuffix(d, `"}}`))
		}
	}
	if resp.StatusCode != http.StatusOK || text.String() != "Hello world" || strings.Count(body, "event: message_start") != 1 ||
		strings.Count(body, "event: message_stop") != 1 || strings.Contains(body, "event: error") {
		t.Fatalf("a translated stream cut and continued: %d text %q\n%s", resp.StatusCode, text.String(), body)
	}
	if _, delta, _ := strings.Cut(body, "event: message_delta"); !strings.Contains(delta, `"output_tokens":`) || strings.Contains(delta, `"output_tokens":0`) {
		t.Errorf("message_delta without the continued answer's usage: %s", delta)
	}
	if g1, g2 := b1.Requests(), b2.Requests(); len(g1) != 1 || len(g2) != 1 || !strings.Contains(string(g1[0].Body), `"role":"user"`) {
		t.Errorf("b1 got %d requests, b2 %d; want one each, translated", len(g1), len(g2))
	}
	recs.Wait(t, 1)
	if !drained(a.Server) {
		t.Errorf("the allowance holds %d bytes after the request", a.Server.BodiesHeld())
	}
}
