package e2e

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 65i. On a route whose first target has no completions: true
// ("mixed": chat/chatonly, sonnet/claude, then coder2/backup), every
// /v1/completions request passes the chat-only endpoints over unsent
// (status 0, evidence "translate": docs/doors.md, "Legacy Completions").
// No request reaches them, and they answer nothing. Before the fix each
// pass-over was reported as an unknown of theirs: /v1/health showed
// last_class "unknown" on chat/chatonly, which docs/behaviour.md defines as
// "the class of the last failed answer the endpoint gave", and /metrics
// counted an upstream attempt (detour_attempts_total{class="unknown"},
// "upstream attempts, by the class of their answer": docs/metrics.md) and
// an upstream duration for a call never made. The console's last failure
// already left unsent attempts out (internal/console/ring.go). Before this door a
// pass-over was rare (a part a dialect cannot express); here it is every
// completion request on such a route, so an operator watching unknowns on
// a chat endpoint saw its editor's autocomplete traffic.
func TestReview65iPassOverIsNoAnswerOfTheEndpoint(t *testing.T) {
	g, fs, c := completionsGateway(t, map[string]upstreamtest.Script{"backup": script(upstreamtest.Step{Body: completionJSON("qwen-coder-b", "ok")})})
	if _, err := c.Completions.New(context.Background(), fimParams("mixed")); err != nil {
		t.Fatal(err)
	}
	g.recs.wait(t, 1)
	if fs["chatonly"].Calls() != 0 {
		t.Fatalf("chatonly was called %d times", fs["chatonly"].Calls())
	}
	for _, ep := range [][2]string{{"chat", "chatonly"}, {"sonnet", "claude"}} {
		e, ok := g.health(t).Endpoint(ep[0], ep[1])
		if !ok {
			t.Fatalf("no endpoint %s/%s in /v1/health", ep[0], ep[1])
		}
		if e.LastClass != "" || e.Failures != 0 {
			t.Errorf("%s/%s, never sent a request, shows last_class %q (failures %d)", ep[0], ep[1], e.LastClass, e.Failures)
		}
	}
	metrics := string(g.raw(t, http.MethodGet, "/metrics", "").Body)
	for _, l := range strings.Split(metrics, "\n") {
		if (strings.HasPrefix(l, "detour_attempts_total{") || strings.HasPrefix(l, "detour_upstream_duration_seconds_count{")) &&
			(strings.Contains(l, `provider="chatonly"`) || strings.Contains(l, `provider="claude"`)) && !strings.HasSuffix(l, " 0") {
			t.Errorf("an upstream attempt counted for a pass-over: %s", l)
		}
		// Nor is the move past it a failover (review 65k's leftover): no
		// upstream failed.
		if strings.HasPrefix(l, "detour_failovers_total{") && strings.Contains(l, `class="unknown"`) && !strings.HasSuffix(l, " 0") {
			t.Errorf("a pass-over counted as a failover: %s", l)
		}
	}
}
