package server_test

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 36d. Since 55e7ae5 an attempt skipped as too costly no longer
// replaces w.last/w.lastEP (target.go:106). But comeBack (retryafter.go:113)
// reads w.lastEP as "the endpoint the walk stopped at": when a route's
// rules stop the walk AT the too-costly target (fallback_on without
// unknown), lastEP is the earlier target instead — cooling from its own
// 429 — so the targets after the stop (w.unwalked) are counted as ready
// now. The client gets the earlier target's 429 with its Retry-After
// dropped (wait 0), the very thing 55e7ae5 set out to keep; yet its next
// request stops at the same too-costly target and never reaches them.
func TestReview36dTooCostlyStopKeepsTheEarlierRetryAfter(t *testing.T) {
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "30"}, Body: `{"error":{"message":"slow down","type":"rate_limit_error"}}`}
	})
	an := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 500, Body: `{"error":{"message":"never called"}}`}
	})
	q := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 500, Body: `{"error":{"message":"never called"}}`}
	})
	t.Cleanup(p.Close)
	t.Cleanup(an.Close)
	t.Cleanup(q.Close)
	cfg := strings.NewReplacer("{an}", an.URL, "{p}", p.URL, "{q}", q.URL).Replace(`
max_body_bytes: 1048576
max_inflight_body_bytes: 4194304
providers:
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: sk-test}
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-test}
  - {name: q, dialect: openai, base_url: "{q}", api_key: sk-test}
targets:
  - {name: b, model: model-b, providers: [p]}
  - {name: claude, model: claude-x, providers: [an]}
  - {name: c, model: model-c, providers: [q]}
routes:
  - {name: r, targets: [b, claude, c], fallback_on: [rate_limited, server_error, timeout]}
`)
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{})
	chat := `{"model":"r","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + tooCostly + `]}]}`
	for i := 1; i <= 2; i++ {
		resp, body := post(t, url, "/v1/chat/completions", chat)
		t.Logf("request %d: %d Retry-After %q x-should-retry %q %.200s; upstream calls p %d an %d q %d",
			i, resp.StatusCode, resp.Header.Get("Retry-After"), resp.Header.Get("X-Should-Retry"), body, p.Calls(), an.Calls(), q.Calls())
		if i == 1 && (resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "") {
			t.Errorf("first target 429 Retry-After: 30, the walk stopped at the second (too costly, fallback_on without unknown): client got %d Retry-After %q; want 429 with the first target's Retry-After (target c is never reached: the walk stops at claude)",
				resp.StatusCode, resp.Header.Get("Retry-After"))
		}
	}
	if q.Calls() != 0 {
		t.Logf("target c was reached %d times", q.Calls())
	}
}

// Review 36d (question 4, holds): a walk of an attempt at a translating
// target that fits, one skipped as too costly and one at a target that
// takes the body as is gives the allowance back whole.
func TestReview36dTooCostlyWalkGivesTheAllowanceBack(t *testing.T) {
	p := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 503, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}
	})
	an := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 529, Body: `{"type":"error","error":{"type":"overloaded_error","message":"busy"}}`}
	})
	t.Cleanup(p.Close)
	t.Cleanup(an.Close)
	cfg := overdraftConfig(an, p, "[claude, b]")
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{})
	for _, chat := range []string{
		`{"model":"r","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + tooCostly + `]}]}`,
		`{"model":"r","messages":[{"role":"user","content":"` + strings.Repeat("x", 200_000) + `"}]}`,
	} {
		resp, _ := post(t, url, "/v1/chat/completions", chat)
		t.Logf("status %d", resp.StatusCode)
	}
	for deadline := time.Now().Add(5 * time.Second); a.Server.BodiesHeld() != 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond) // the handler gives the body back once it returns
	}
	if h := a.Server.BodiesHeld(); h != 0 || a.Server.Overdrawn() {
		t.Errorf("after the walks the allowance holds %d (overdrawn %v), want 0", h, a.Server.Overdrawn())
	}
}
