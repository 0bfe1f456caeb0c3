package server_test

import (
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 69d: the Responses door names the client's member for an
// error's param by translating the client's body a second time, recording
// (responses.Params), only when an error asks. That translation costs what
// the door's first did (about 59 times the body for one-letter items),
// and the first is taken from the request-body allowance; the second was
// taken from nothing: every request an upstream answered with a param (a
// 400 with param "messages", which a long input alone draws from OpenAI)
// allocated its ~59× at once, however many ran, past
// max_inflight_body_bytes. It is taken from the allowance like the first;
// where it does not fit, the error names no member rather than wait.
func TestHostile69dRecordingTranslationIsCounted(t *testing.T) {
	an := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: claudeJSON()} })
	t.Cleanup(an.Close)
	var (
		mu       sync.Mutex
		onCall   func()
		giveBack func()
	)
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		mu.Lock()
		if onCall != nil {
			onCall()
		}
		mu.Unlock()
		return upstreamtest.Step{Status: 400, Body: `{"error":{"message":"Invalid content.","type":"invalid_request_error","param":"messages[1].content","code":"invalid_value"}}`}
	})
	t.Cleanup(p.Close)
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, overdraftConfig(an, p, "[b]")), app.Options{})
	body := blocks("/v1/responses", "r", 300<<10) // its recording translation: ~18 MB, past the 4 MiB allowance

	// Another request's translation holds the overdraft from the moment
	// the upstream is called (the door's own translation is done by then).
	mu.Lock()
	onCall = func() { giveBack = a.Server.Overdraw() }
	mu.Unlock()
	resp, out := post(t, url, "/v1/responses", body)
	mu.Lock()
	onCall = nil
	if giveBack != nil {
		giveBack()
	}
	mu.Unlock()
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, `"param":null`) {
		t.Errorf("the recording translation did not fit beside the overdraft: %d %.300s, want 400 naming no member (before: translated anyway, uncounted)", resp.StatusCode, out)
	}

	// With room, the member is named.
	resp, out = post(t, url, "/v1/responses", body)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(out, `"param":"input[1].content"`) {
		t.Errorf("with the allowance free: %d %.300s, want param input[1].content", resp.StatusCode, out)
	}
	if !drained(a.Server) {
		t.Errorf("after the requests: %d bytes held, overdraft held %v", a.Server.BodiesHeld(), a.Server.Overdrawn())
	}
}
