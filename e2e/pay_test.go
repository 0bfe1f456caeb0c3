package e2e

import (
	"context"
	"errors"
	"net/http"
	"strconv"
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

// An error event before a stream's first content makes an attempt that is
// not billable (docs/behaviour.md#budgets), and an attempt that was not
// billable costs 0 (docs/config.md, "Usage and cost"), even where the
// upstream's message_start had already counted the prompt: the record must
// not say billable: false beside a cost, nor the client's budget pay for it.
func TestPayNotBillableCostsNothing(t *testing.T) {
	msgStart := sseBlocks(string(testdata(t, "anthropic", "stream/basic.sse")))[0]
	overloaded := corpus(t, "anthropic-sse-overloaded-error-midstream")
	overloaded.Events = append([]string{msgStart}, overloaded.Events...)
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(overloaded), "q": script(okStream("model-b", "Hel", "lo"))})
	g := start(t, `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic], price: {input: 3, output: 15}}
  - {name: b, model: model-b, providers: [q], price: {input: 1, output: 1}}
routes:
  - {name: c, targets: [claude, b], fallback_on: [server_error]}
`, fs)
	r := g.post(t, "c", stream)
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "claude/anthropic server_error retry", "claude/anthropic server_error next_target", "b/q ok done")
	for _, a := range d.Attempts[:2] {
		if a.Billable {
			t.Errorf("attempt %s/%s billable, want not (an error event before content)", a.Target, a.Provider)
		}
		if a.CostUnknown || !a.CostUSD.Known() || *a.CostUSD != 0 {
			t.Errorf("attempt %s/%s, not billable, costs %v (unknown %v), want 0", a.Target, a.Provider, a.CostUSD, a.CostUnknown)
		}
	}
}

// A gateway in front of the provider that stopped waiting for it (504, or
// Cloudflare's 524 after 100 s) had handed it the request whole: the model
// may have run and be billed, as when Detour's own timeout fires after
// sending. Under a budget of one billable attempt the next vendor is never
// called, and the SDK is told not to send it again.
func TestPayGatewayTimeoutIsBillable(t *testing.T) {
	for _, status := range []int{504, 524} {
		t.Run(strconv.Itoa(status), func(t *testing.T) {
			gw := upstreamtest.Step{Status: status, Body: "<html><head><title>" + strconv.Itoa(status) + ": A timeout occurred</title></head></html>"}
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(gw), "q": script(ok("model-b", "b")), "s": script(ok("model-c", "c"))})
			g := start(t, threeCfg("{name: r, targets: [a, b], max_billable_attempts: 1}"), fs)
			var sent atomic.Int32
			c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(counted(&sent)))
			_, err := c.Chat.Completions.New(context.Background(), hello("r"))
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != status {
				t.Fatalf("err %v, want the upstream's %d", err, status)
			}
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "a/p timeout stop")
			if !d.Attempts[0].Billable {
				t.Errorf("a gateway's timeout after the request was sent is billable: %+v", d.Attempts[0])
			}
			wantSkip(t, d, "b/q", "max_billable_attempts 1")
			if n := sent.Load(); n != 1 || fs["p"].Calls() != 1 || fs["q"].Calls() != 0 {
				t.Errorf("the SDK sent %d requests, a was called %d times, b %d; want 1, 1 and 0", n, fs["p"].Calls(), fs["q"].Calls())
			}
		})
	}
}

// A 2xx that carried a failure but reported the tokens it counted (a
// Gemini candidate that ended OTHER with no content, a relay's
// MALFORMED_FUNCTION_CALL) was counted by its upstream, which may charge
// for it: under a budget of one billable attempt it is that attempt, and
// the next vendor is not called to pay again.
func TestPayFailed2xxThatCountedIsBillable(t *testing.T) {
	for _, c := range []struct {
		name, dialect, body string
		prompt              int
		class               string
	}{
		{"gemini OTHER", "gemini", "gemini-candidate-finish-other-no-content-200", 171, "unknown"},
		{"relayed MALFORMED_FUNCTION_CALL", "openai", "antigravity-gemini-malformed-function-call-finish-200", 419, "unknown"},
		// A blocked prompt the adapter will not translate still reports its count.
		{"gemini prompt blocked", "gemini", "gemini-prompt-feedback-prohibited-content-200", 12559, "refusal"},
	} {
		t.Run(c.name, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": script(upstreamtest.Step{Body: corpusBody(t, c.body)}), "q": script(ok("model-b", "b"))})
			g := start(t, `
providers:
  - {name: p, dialect: `+c.dialect+`, base_url: "{p}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p], price: {input: 1, output: 2}}
  - {name: b, model: model-b, providers: [q]}
routes:
  - {name: r, targets: [a, b], max_billable_attempts: 1}
`, fs)
			g.post(t, "r", "")
			d := g.recs.wait(t, 1)
			wantSteps(t, d, "a/p "+c.class+" stop")
			a := d.Attempts[0]
			if !a.Billable || a.Usage == nil || a.Usage.PromptTokens != c.prompt || a.CostUSD == nil {
				t.Errorf("attempt %+v (usage %+v), want billable with its %d prompt tokens and a cost", a, a.Usage, c.prompt)
			}
			if fs["q"].Calls() != 0 {
				t.Error("the next vendor was called past the billable cap")
			}
		})
	}
}
