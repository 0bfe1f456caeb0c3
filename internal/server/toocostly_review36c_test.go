package server_test

import (
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 36c. An attempt skipped as translation_too_costly is no answer
// from anyone, yet the walk ends with the last attempt's outcome: when an
// earlier target that takes the body as is failed for a passing reason
// (a 503 with Retry-After), the client is told 413 translation_too_costly
// — "no retry makes it fit", which SDKs never retry — and loses the
// upstream's Retry-After, though the same request retried in a moment
// would be served by that first target.
func TestReview36cATooCostlySkipDoesNotMaskARetryableFailure(t *testing.T) {
	p := upstreamtest.New(func(n int, _ upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 503, Header: map[string]string{"Retry-After": "2"}, Body: `{"error":{"message":"overloaded","type":"server_error"}}`}
	})
	an := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: claudeJSON()} })
	t.Cleanup(p.Close)
	t.Cleanup(an.Close)
	cfg := overdraftConfig(an, p, "[b, claude]")
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, cfg), app.Options{})
	chat := `{"model":"r","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + tooCostly + `]}]}`
	resp, body := post(t, url, "/v1/chat/completions", chat)
	if resp.StatusCode == 413 || resp.Header.Get("Retry-After") == "" {
		t.Errorf("first target 503 Retry-After: 2, second skipped as too costly: client got %d Retry-After %q %.300s; want the first target's 503 and its Retry-After",
			resp.StatusCode, resp.Header.Get("Retry-After"), body)
	}
}
