package e2e

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A relay (LiteLLM's mid-stream fallback) sends its upstream's 400 — one
// client's tool schema Vertex refused — as its own 503, naming the 400 by
// the OpenAI SDK's exception name (docs/behaviour.md, "A 5xx is
// server_error unless its body proves otherwise"). It is that client's
// answer: the relay does not cool for everyone else however often the
// client sends it, nothing walks on to pay another vendor, and the SDK is
// told not to send it again.
func TestRelayedClientErrorDoesNotCoolTheRelay(t *testing.T) {
	relayed := corpus(t, "litellm-503-vertex-400-bytes-form-function-declaration-schema-type-object")
	const bad = 5 // above the default failure_threshold
	steps := make([]upstreamtest.Step, 0, bad+1)
	for range bad {
		steps = append(steps, relayed)
	}
	steps = append(steps, ok("model-a", "served"))
	fs := fakes(t, map[string]upstreamtest.Script{"p1": script(steps...), "q": script(ok("model-b", "q"))})
	g := start(t, oneEach, fs)

	var sent atomic.Int32
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(counted(&sent)))
	_, err := c.Chat.Completions.New(context.Background(), hello("r"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) {
		t.Fatalf("err %v, want the relay's answer", err)
	}
	if !strings.Contains(apiErr.Message, "functionDeclaration parameters schema should be of type OBJECT") {
		t.Errorf("message %q is not the upstream's", apiErr.Message)
	}
	if v := apiErr.Response.Header.Get("X-Should-Retry"); v != "false" || sent.Load() != 1 {
		t.Errorf("X-Should-Retry %q after %d requests; want false after 1 (the request is at fault)", v, sent.Load())
	}
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p1 bad_request stop")
	if a := d.Attempts[0]; a.Counted || a.Billable || a.Status != 503 {
		t.Errorf("attempt %+v: want the relay's 503, uncounted, unbilled", a)
	}
	for i := 2; i <= bad; i++ {
		g.post(t, "r", "")
		wantSteps(t, g.recs.wait(t, i), "a/p1 bad_request stop")
	}
	if e, _ := g.health(t).Endpoint("a", "p1"); e.State != "healthy" || e.Failures != 0 {
		t.Errorf("the relay in /v1/health after %d of one client's answers: %+v", bad, e)
	}
	// Another client's good request is served by the relay, not moved on.
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, bad+1), "a/p1 ok done")
	if n := fs["q"].Calls(); n != 0 {
		t.Errorf("the next vendor was called %d times, want 0", n)
	}
}
