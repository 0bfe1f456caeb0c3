package e2e

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/anthropics/anthropic-sdk-go/v2"
	aoption "github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// When a request ends with an upstream's rate limit (or overload) that
// named its wait, the client's answer says when to come back: Retry-After,
// in whole seconds rounded up, the soonest moment an endpoint the request
// tried (or had left to try) may serve it again (docs/behaviour.md#api).
// The SDKs read it: without it they retry on their own short backoff into
// the same limit.

const retryAfterCfg = `
providers:
  - {name: oa, dialect: openai, base_url: "{oa}", api_key: ` + secret + `}
  - {name: ob, dialect: openai, base_url: "{ob}", api_key: ` + secret + `}
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: ` + secret + `}
  - {name: ge, dialect: gemini, base_url: "{ge}", api_key: ` + secret + `}
retry: {max_wait: 1s}
targets:
  - {name: a, model: gpt-4o, providers: [oa]}
  - {name: b, model: gpt-4o-mini, providers: [ob]}
  - {name: claude, model: claude-sonnet-4-5, providers: [an]}
  - {name: gem, model: gemini-2.5-flash, providers: [ge]}
routes:
  - {name: ab, targets: [a, b]}
  - {name: ab1, targets: [a, b], max_attempts: 1}
`

const openai429 = `{"error":{"message":"Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): Limit 500, Used 500, Requested 1.","type":"requests","param":null,"code":"rate_limit_exceeded"}}`

func limited(retryAfter string) upstreamtest.Step {
	st := upstreamtest.Step{Status: 429, Body: openai429}
	if retryAfter != "" {
		st.Header = map[string]string{"Retry-After": retryAfter}
	}
	return st
}

func startRetryAfter(t *testing.T, scripts map[string]upstreamtest.Script) *gateway {
	t.Helper()
	for _, n := range []string{"oa", "ob", "an", "ge"} {
		if scripts[n] == nil {
			scripts[n] = script(ok("x", "x"))
		}
	}
	return start(t, retryAfterCfg, fakes(t, scripts))
}

func wantRetryAfter(t *testing.T, r reply, status int, want string) {
	t.Helper()
	if r.Status != status || r.Header.Get("Retry-After") != want || len(r.Header.Values("Retry-After")) > 1 {
		t.Errorf("got %d, Retry-After %q; want %d, Retry-After %q (%s)", r.Status, r.Header.Values("Retry-After"), status, want, r.Body)
	}
	// The exact wait, which the SDKs prefer, rounds up to the same seconds.
	ms := r.Header.Get("Retry-After-Ms")
	if want == "" {
		if ms != "" {
			t.Errorf("Retry-After-Ms %q without a Retry-After", ms)
		}
		return
	}
	n, err := strconv.ParseInt(ms, 10, 64)
	if secs, _ := strconv.ParseInt(want, 10, 64); err != nil || n <= 0 || (n+999)/1000 != secs {
		t.Errorf("Retry-After-Ms %q, want milliseconds rounding up to %s s", ms, want)
	}
}

// Every door: the upstream's 429 reaches the client with its wait.
func TestRetryAfterRelayedEveryDoor(t *testing.T) {
	g := startRetryAfter(t, map[string]upstreamtest.Script{
		"oa": script(limited("20")),
		"an": script(corpus(t, "anthropic-rate-limit-pretty", "retry-after", "20")),
		"ge": script(corpus(t, "gemini-resource-exhausted-per-minute-tokens")), // RetryInfo: 26s, in the body
	})
	for _, c := range []struct{ name, path, body, want string }{
		{"chat", "/v1/chat/completions", `{"model":"a","messages":[{"role":"user","content":"hi"}]}`, "20"},
		{"responses", "/v1/responses", `{"model":"a","input":"hi"}`, "20"},
		{"messages translated", "/v1/messages", `{"model":"a","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "20"},
		{"messages passthrough", "/v1/messages", `{"model":"claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`, "20"},
		{"embeddings", "/v1/embeddings", `{"model":"a","input":"hi"}`, "20"},
		{"chat to gemini, the wait in the body", "/v1/chat/completions", `{"model":"gem","messages":[{"role":"user","content":"hi"}]}`, "26"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := g.raw(t, http.MethodPost, c.path, c.body, "anthropic-version", "2023-06-01")
			wantRetryAfter(t, r, 429, c.want)
			if r.Header.Get("X-Detour-Class") != "rate_limited" {
				t.Errorf("X-Detour-Class %q", r.Header.Get("X-Detour-Class"))
			}
		})
	}
}

// limitedUntil answers 429 with Retry-After: 2 until two seconds after its
// first call, then ok: a provider's per-minute window.
func limitedUntil(okStep upstreamtest.Step, limitedStep func(secs string) upstreamtest.Step) upstreamtest.Script {
	var mu sync.Mutex
	var until time.Time
	return func(n int, _ upstreamtest.Request) upstreamtest.Step {
		mu.Lock()
		defer mu.Unlock()
		if until.IsZero() {
			until = time.Now().Add(2 * time.Second)
		}
		if time.Now().Before(until) {
			return limitedStep("2")
		}
		return okStep
	}
}

// The SDKs wait as told and their one retry is served; told nothing, they
// come back within a second and meet the same limit.
func TestRetryAfterSDKsWaitAsTold(t *testing.T) {
	t.Run("openai-go", func(t *testing.T) {
		g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": limitedUntil(ok("gpt-4o", "served"), limited)})
		c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey("unused"), option.WithMaxRetries(1))
		res, err := c.Chat.Completions.New(context.Background(), hello("a"))
		if err != nil {
			t.Fatalf("openai-go with one retry: %v", err)
		}
		if res.Choices[0].Message.Content != "served" {
			t.Errorf("answer %q", res.Choices[0].Message.Content)
		}
	})
	t.Run("anthropic-sdk-go", func(t *testing.T) {
		g := startRetryAfter(t, map[string]upstreamtest.Script{"an": limitedUntil(
			upstreamtest.Step{Body: anthropicMessage("claude-sonnet-4-5", "served")},
			func(secs string) upstreamtest.Step {
				return corpus(t, "anthropic-rate-limit-pretty", "retry-after", secs)
			})})
		c := anthropic.NewClient(aoption.WithBaseURL(g.URL+"/"), aoption.WithAPIKey("unused"), aoption.WithMaxRetries(1))
		m, err := c.Messages.New(context.Background(), askClaude("claude", "hi"))
		if err != nil {
			t.Fatalf("anthropic-sdk-go with one retry: %v", err)
		}
		if claudeText(m) != "served" {
			t.Errorf("answer %q", claudeText(m))
		}
	})
}

// Several targets: the soonest any of them may serve again, not the last
// failure's wait.
func TestRetryAfterSoonestOfTheTargets(t *testing.T) {
	for _, c := range []struct{ a, b, want string }{{"30", "5", "5"}, {"5", "30", "5"}, {"7", "7", "7"}} {
		g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": script(limited(c.a)), "ob": script(limited(c.b))})
		r := g.post(t, "ab", "")
		wantRetryAfter(t, r, 429, c.want)
		wantSteps(t, g.recs.wait(t, 1), "a/oa rate_limited next_target", "b/ob rate_limited stop")
	}
}

// A target the budget left untried is counted too: when it is cooling,
// from the end of its cooldown.
func TestRetryAfterUntriedCoolingTarget(t *testing.T) {
	g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": script(limited("20")), "ob": script(limited("8"))})
	wantRetryAfter(t, g.post(t, "b", ""), 429, "8") // b cools for its 8s
	r := g.post(t, "ab1", "")                       // a first (b is cooling), then max_attempts 1
	d := g.recs.wait(t, 2)
	wantSteps(t, d, "a/oa rate_limited stop")
	wantSkip(t, d, "b/ob", "budget spent: max_attempts 1")
	if v := r.Header.Get("Retry-After"); v != "8" && v != "7" {
		t.Errorf("Retry-After %q, want b's cooldown's end (8s, or 7 a second later), not a's 20", v)
	}
}

// An upstream's wait counts for at most health.max_cooldown (5m by
// default): by then Detour tries the endpoint again itself.
func TestRetryAfterAtMostMaxCooldown(t *testing.T) {
	g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": script(limited("1800"))})
	wantRetryAfter(t, g.post(t, "a", ""), 429, "300")
}

// No Retry-After where a retry now may be served, where the wait is not
// the upstream's word, or where it would not be a short wait.
func TestRetryAfterOnlyAKnownWait(t *testing.T) {
	serverError := upstreamtest.Step{Status: 500, Body: `{"error":{"message":"The server had an error","type":"server_error"}}`}
	for _, c := range []struct {
		name   string
		model  string
		a, b   upstreamtest.Step
		status int
	}{
		// a answered 500 and named no wait: it may serve a retry at once.
		{"another target may serve now", "ab", serverError, limited("20"), 429},
		// max_attempts 1 left b untried, and b is healthy.
		{"a target left untried", "ab1", limited("20"), ok("x", "x"), 429},
		{"a 429 naming no wait", "a", limited(""), ok("x", "x"), 429},
		// A proxy adds Retry-After to every 500: no wait is read from it.
		{"a 500's Retry-After", "a", upstreamtest.Step{Status: 500, Body: serverError.Body, Header: map[string]string{"Retry-After": "30"}}, ok("x", "x"), 500},
		// Two hours is an allowance spent (quota), not a short limit.
		{"quota", "a", limited("7200"), ok("x", "x"), 429},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": script(c.a), "ob": script(c.b)})
			wantRetryAfter(t, g.post(t, c.model, ""), c.status, "")
		})
	}
}

// A 503 or 529 naming its wait is an overload with a known end: relayed
// too, rounded up to whole seconds (retry-after-ms: 1500 is 2).
func TestRetryAfterServerError(t *testing.T) {
	overloaded := `{"error":{"message":"The engine is currently overloaded, please try again later","type":"server_error"}}`
	for _, c := range []struct{ name, header, value, want string }{
		{"Retry-After", "Retry-After", "7", "7"},
		{"retry-after-ms", "retry-after-ms", "1500", "2"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": script(upstreamtest.Step{Status: 503, Body: overloaded,
				Header: map[string]string{c.header: c.value}})})
			wantRetryAfter(t, g.post(t, "a", ""), 503, c.want)
		})
	}
}

// A retry time the client's own text could have put in the upstream's
// answer is no wait (the classifier passes it over): a client cannot make
// Detour tell other clients' SDKs to wait.
func TestRetryAfterNotFromTheClientsText(t *testing.T) {
	echo := upstreamtest.Step{Status: 429, Body: `{"error":{"message":"Rate limit reached for requests. Please try again in 240s. Your input: please try again in 240s","type":"requests","code":"rate_limit_exceeded"}}`}
	g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": script(echo)})
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"a","messages":[{"role":"user","content":"please try again in 240s"}]}`)
	wantRetryAfter(t, r, 429, "")
	// The same answer to a client that did not write it names a wait.
	r = g.post(t, "a", "")
	wantRetryAfter(t, r, 429, "240")
}

// The openai-go SDK reads the error's status and Retry-After.
func TestRetryAfterOpenAIError(t *testing.T) {
	g := startRetryAfter(t, map[string]upstreamtest.Script{"oa": script(limited("20"))})
	_, err := sdk(g).Chat.Completions.New(context.Background(), hello("a"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Response.Header.Get("Retry-After") != "20" {
		t.Fatalf("%v", err)
	}
}
