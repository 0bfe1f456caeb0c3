package e2e

import (
	"context"
	"errors"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile review, round 14: a request must never be billed past its budget,
// through the gateway or through the SDK's own retries.

// A budget of one billable attempt, spent by the route's only attempt: the
// walk ran out of endpoints before the budget stopped it, but the SDK's
// retry would still be a new request that pays again (docs/behaviour.md#api,
// "Whether to retry").
func TestPaySDKDoesNotRetryABudgetSpentByTheLastAttempt(t *testing.T) {
	t.Parallel() // a second of upstream silence
	silent := upstreamtest.Step{Delay: 10 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}
	for _, tc := range []struct {
		name, route string
		opts        []option.RequestOption
	}{
		{"route", "{name: r, targets: [a], max_billable_attempts: 1}", nil},
		{"header", "{name: r, targets: [a]}", []option.RequestOption{option.WithHeader("X-Detour-Max-Billable-Attempts", "1")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(silent, silent, silent), "q": script(ok("model-b", "b")), "s": script(ok("model-c", "c"))})
			g := start(t, threeCfg(tc.route), fs)
			var sent atomic.Int32
			c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(counted(&sent)))
			_, err := c.Chat.Completions.New(context.Background(), hello("r"), tc.opts...)
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusGatewayTimeout {
				t.Fatalf("err %v, want the 504", err)
			}
			if v := apiErr.Response.Header.Get("X-Should-Retry"); v != "false" {
				t.Errorf("X-Should-Retry %q, want false", v)
			}
			if n := sent.Load(); n != 1 || fs["p"].Calls() != 1 {
				t.Errorf("the SDK sent %d requests, the upstream was called %d times; want 1 and 1 (it pays for each)", n, fs["p"].Calls())
			}
		})
	}
}
