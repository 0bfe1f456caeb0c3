package e2e

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// The official SDKs retry a 408, 409, 429 or 5xx twice on their own unless
// the answer says x-should-retry: false. Detour has already retried and
// failed over as the route allows; where another try cannot help soon or
// would pay again, it says so, and the SDK at its default settings sends
// the request once (docs/behaviour.md#api, "Whether to retry").

// counted is an http.Client that counts the requests the SDK sends.
func counted(n *atomic.Int32) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(r *http.Request) (*http.Response, error) {
		n.Add(1)
		return http.DefaultTransport.RoundTrip(r)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// A budgeted request that paid for a timeout is not sent again by the SDK:
// its retry would be a new request with a new budget, and pay twice.
func TestSDKDoesNotRetryAPaidBudget(t *testing.T) {
	t.Parallel() // a second of upstream silence
	silent := upstreamtest.Step{Delay: 10 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(silent), "q": script(ok("model-b", "b")), "s": script(ok("model-c", "c"))})
	g := start(t, threeCfg("{name: r, targets: [a, b], max_billable_attempts: 1}"), fs)
	var sent atomic.Int32
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(counted(&sent)))
	_, err := c.Chat.Completions.New(context.Background(), hello("r"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusGatewayTimeout {
		t.Fatalf("err %v, want the 504", err)
	}
	if v := apiErr.Response.Header.Get("X-Should-Retry"); v != "false" {
		t.Errorf("X-Should-Retry %q", v)
	}
	if n := sent.Load(); n != 1 || fs["p"].Calls() != 1 {
		t.Errorf("the SDK sent %d requests, the upstream was called %d times; want 1 and 1 (it pays for each)", n, fs["p"].Calls())
	}
}

// A request at fault fails the same way again, even when the upstream said
// so with a 500 (llama-server's over-long prompt): the client is told a 400
// (since round 58: a full window is a 400 at every door, docs/behaviour.md
// "The client's status"), and the SDK sends it once.
func TestSDKDoesNotRetryARequestAtFault(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, "llamacpp-context-size-has-been-exceeded-500")),
		"q": script(ok("model-b", "b")), "s": script(ok("model-c", "c"))})
	g := start(t, threeCfg("{name: r, targets: [a]}"), fs)
	var sent atomic.Int32
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(counted(&sent)))
	_, err := c.Chat.Completions.New(context.Background(), hello("r"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 400 || apiErr.Code != "context_length_exceeded" {
		t.Fatalf("err %v, want the upstream's 500 told as a 400 context_length", err)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the SDK sent %d requests, want 1", n)
	}
}

// Every account spent: the Anthropic SDK, through the Messages door to an
// OpenAI target whose quota answer is a 429, gives up at once.
func TestSDKDoesNotRetryWhenNothingWillServeSoon(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, "openai-insufficient-quota-429")),
		"q": script(corpus(t, "openai-insufficient-quota-429")), "s": script(ok("model-c", "c"))})
	g := start(t, threeCfg("{name: r, targets: [a, b]}"), fs)
	var sent atomic.Int32
	c := anthropic.NewClient(aoption.WithBaseURL(g.URL+"/"), aoption.WithAPIKey("unused"), aoption.WithHTTPClient(counted(&sent)))
	_, err := c.Messages.New(context.Background(), askClaude("r", "hi"))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("err %v, want the quota's 429", err)
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the SDK sent %d requests, want 1", n)
	}
	wantSteps(t, g.recs.wait(t, 1), "a/p quota next_target", "b/q quota stop")
}

// Where another endpoint may serve soon, the SDK keeps its own retry: an
// endpoint that timed out may answer the next request.
func TestSDKRetriesWhenAnEndpointMayServe(t *testing.T) {
	t.Parallel() // a second of upstream silence
	silent := upstreamtest.Step{Delay: 10 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(silent, ok("model-a", "served")),
		"q": script(corpus(t, "openai-insufficient-quota-429")), "s": script(ok("model-c", "c"))})
	g := start(t, threeCfg("{name: r, targets: [a, b]}"), fs)
	var sent atomic.Int32
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(counted(&sent)), option.WithMaxRetries(1))
	res, err := c.Chat.Completions.New(context.Background(), hello("r"))
	if err != nil {
		t.Fatalf("openai-go with one retry: %v", err)
	}
	if res.Choices[0].Message.Content != "served" || sent.Load() != 2 {
		t.Errorf("answer %q after %d requests, want a's answer to the SDK's retry", res.Choices[0].Message.Content, sent.Load())
	}
}

// An ordered route stops at a server with no model loaded (TabbyAPI's 503,
// unavailable: the endpoint cools at once) and does not move on by itself.
// The SDK's own retry of that 503 skips what just cooled and reaches the
// next target, so the answer does not tell it to stop, and openai-go at
// its default settings gets an answer from its second request.
func TestSDKRetryReachesTheTargetAStopLeft(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(corpus(t, "tabbyapi-no-models-currently-loaded-503")),
		"q": script(ok("model-b", "served")), "s": script(ok("model-c", "c"))})
	g := start(t, threeCfg("{name: r, targets: [a, b]}"), fs)
	var sent atomic.Int32
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithHTTPClient(counted(&sent)))
	res, err := c.Chat.Completions.New(context.Background(), hello("r"))
	if err != nil {
		t.Fatalf("openai-go at its default settings: %v", err)
	}
	if res.Choices[0].Message.Content != "served" || sent.Load() != 2 || fs["p"].Calls() != 1 {
		t.Errorf("answer %q after %d requests, a/p called %d times; want b's answer to the SDK's retry, a/p once",
			res.Choices[0].Message.Content, sent.Load(), fs["p"].Calls())
	}
	wantSteps(t, g.recs.wait(t, 1), "a/p unavailable stop")
}

// A wait past the retry horizon (a minute): anthropic-sdk-go sleeps for
// whatever Retry-After says before its retry, and the Python and
// TypeScript SDKs ignore so long a wait and come back at once into the
// same limit. The answer keeps its Retry-After and says not to retry.
func TestSDKDoesNotWaitOutALongRetryAfter(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"an": script(corpus(t, "anthropic-rate-limit-pretty", "retry-after", "120"))})
	g := start(t, `
providers:
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [an]}
`, fs)
	var sent atomic.Int32
	c := anthropic.NewClient(aoption.WithBaseURL(g.URL+"/"), aoption.WithAPIKey("unused"), aoption.WithHTTPClient(counted(&sent)))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second) // far below the 120 s the SDK would sleep
	defer cancel()
	_, err := c.Messages.New(ctx, askClaude("claude", "hi"))
	var apiErr *anthropic.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("err %v, want the 429 at once", err)
	}
	if h := apiErr.Response.Header; h.Get("Retry-After") != "120" || h.Get("X-Should-Retry") != "false" {
		t.Errorf("Retry-After %q, X-Should-Retry %q", h.Get("Retry-After"), h.Get("X-Should-Retry"))
	}
	if n := sent.Load(); n != 1 {
		t.Errorf("the SDK sent %d requests, want 1", n)
	}
	// The SDK's error names the decision id, which leads to the record.
	if id := apiErr.Response.Header.Get("X-Detour-Decision"); id == "" || apiErr.RequestID != id || !strings.Contains(err.Error(), "(Request-ID: "+id+")") {
		t.Errorf("the SDK's error %q does not name decision %q", err, id)
	}
}
