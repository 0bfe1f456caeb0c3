package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 37a: money and shared-gateway limits, as a hostile client holding
// a valid client key.

// r37aGateway serves yaml ("{up}" replaced by up's URL) with the limits'
// clock on clk and a decision sink.
func r37aGateway(t *testing.T, yaml string, up *upstreamtest.Server, clk *testutil.Clock) (string, *app.App, *gatewaytest.Records) {
	t.Helper()
	return r37aGatewayOf(t, yaml, map[string]*upstreamtest.Server{"up": up}, clk)
}

// r37aGatewayOf is r37aGateway over several upstreams, "{name}" each.
func r37aGatewayOf(t *testing.T, yaml string, ups map[string]*upstreamtest.Server, clk *testutil.Clock) (string, *app.App, *gatewaytest.Records) {
	t.Helper()
	for name, up := range ups {
		yaml = strings.ReplaceAll(yaml, "{"+name+"}", up.URL)
	}
	recs := gatewaytest.NewRecords()
	opt := app.Options{Decisions: recs, Backoff: func() time.Duration { return 5 * time.Millisecond }}
	if clk != nil {
		opt.Clock = clk.Now
	}
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml), opt)
	return url, a, recs
}

// teamAConfig is one client key, team-a (key-team-a), and one target m
// at a provider of dialect whose base URL is "{up}".
func teamAConfig(dialect string) string {
	return `
client_keys:
  - {name: team-a, key: key-team-a}
providers:
  - {name: p, dialect: ` + dialect + `, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: m, model: m, providers: [p]}
`
}

// r37aPost posts body to path with the headers (name, value pairs) and
// returns the status and body.
func r37aPost(t *testing.T, url, path, body string, headers ...string) (int, string) {
	t.Helper()
	resp, b := postWith(t, url, path, body, headers...)
	return resp.StatusCode, b
}

// r37aChunk is one OpenAI chat.completion.chunk carrying text.
func r37aChunk(text string) string {
	b, _ := json.Marshal(map[string]any{"id": "c", "object": "chat.completion.chunk", "created": 1, "model": "m",
		"choices": []any{map[string]any{"index": 0, "delta": map[string]any{"content": text}, "finish_reason": nil}}})
	return string(b)
}

// Review 37a: a client that read a long stream and left before its
// upstream's usage arrived spent only the estimate of its input. The output
// it was served — here 400 chunks of text, at least 400 tokens, at $10 per
// million — now counts against its tokens_per_minute and its budget (one
// token per content event, a lower bound): a key limited to 300 tokens a
// minute and $0.002 a day is refused next (docs/config.md, client_keys).
func TestReview37aLeftStreamSpendsTheOutputItWasServed(t *testing.T) {
	const chunks = 400
	up := upstreamtest.New(func(n int, _ upstreamtest.Request) upstreamtest.Step {
		if n > 1 {
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "y")}
		}
		evs := []string{`{"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}`}
		for i := 0; i < chunks; i++ {
			evs = append(evs, r37aChunk(fmt.Sprintf("word%03d ", i)))
		}
		// The model is still writing (or about to finish) when the client
		// has what it wants and leaves: no finish, no usage yet.
		return upstreamtest.Step{Events: evs, Stall: true}
	})
	t.Cleanup(up.Close)
	cfg := `
client_keys:
  - {name: team-a, key: key-team-a, rate: {tokens_per_minute: 300}, budget: {usd_per_day: 0.002}}
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: gpt, model: m, providers: [p], price: {input: 1.00, output: 10.00}}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	url, _, recs := r37aGateway(t, cfg, up, clk)

	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions",
		strings.NewReader(`{"model":"gpt","stream":true,"messages":[{"role":"user","content":"write 400 words"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer key-team-a")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	got := 0
	for got < chunks && sc.Scan() {
		if strings.Contains(sc.Text(), `"content":"word`) {
			got++
		}
	}
	resp.Body.Close() // served: the client leaves
	if got != chunks {
		t.Fatalf("read %d of %d content chunks", got, chunks)
	}
	d := recs.Wait(t, 1)
	a := d.Attempts[0]
	t.Logf("record: outcome %s billable %v usage %+v estimate %+v cost_unknown %v", d.Outcome, a.Billable, a.Usage, a.Estimate, a.CostUnknown)

	status, body := r37aPost(t, url, "/v1/chat/completions", `{"model":"gpt","messages":[{"role":"user","content":"hi"}]}`,
		"Authorization", "Bearer key-team-a")
	if status != http.StatusTooManyRequests {
		t.Errorf("after being served %d chunks (>= %d output tokens, >= $%.4f) on a 300 tokens/minute, $0.002/day key: status %d, want 429 (%s)",
			chunks, chunks, chunks*10.0/1e6, status, strings.TrimSpace(body))
	}
}

// Review 37a: a key over its rate (or its spent budget) was refused only
// after the front had read its whole body, held in the gateway-wide
// max_inflight_body_bytes while it arrived, so a key its limits had cut off
// could trickle uploads that filled the allowance (every other key got 503
// until the read timeout). Once refused, a key is now refused before its
// body is read until its window turns (limit.Limiter.Refused).
func TestReview37aOverLimitKeyHoldsNoneOfTheBodyAllowance(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "y")}
	})
	t.Cleanup(up.Close)
	cfg := `
max_body_bytes: 1048576
max_inflight_body_bytes: 4194304
client_keys:
  - {name: limited, key: key-limited, rate: {requests_per_minute: 1}}
  - {name: other, key: key-other}
providers:
  - {name: p, dialect: openai, base_url: "{up}", api_key: sk-test-provider-key}
targets:
  - {name: gpt, model: m, providers: [p]}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	url, a, _ := r37aGateway(t, cfg, up, clk)
	chat := `{"model":"gpt","messages":[{"role":"user","content":"hi"}]}`
	if status, body := r37aPost(t, url, "/v1/chat/completions", chat, "Authorization", "Bearer key-limited"); status != 200 {
		t.Fatalf("first request of the limited key: %d %s", status, body)
	}
	if status, _ := r37aPost(t, url, "/v1/chat/completions", chat, "Authorization", "Bearer key-limited"); status != 429 {
		t.Fatalf("second request in the minute: %d, want 429", status)
	}
	// Now over its rate, the key opens four uploads of 1 MiB and sends all
	// but the last byte of each: each is refused at once, its body unread.
	host := strings.TrimPrefix(url, "http://")
	const size = 1 << 20
	for i := 0; i < 4; i++ {
		c, err := net.Dial("tcp", host)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		head := fmt.Sprintf("POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer key-limited\r\n"+
			"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n", host, size)
		prefix := `{"model":"gpt","messages":[{"role":"user","content":"`
		go io.WriteString(c, head+prefix+strings.Repeat("a", size-1-len(prefix))) // all but the last byte
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatalf("upload %d of the over-limit key: no answer before its body ended: %v", i, err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" || !resp.Close {
			t.Fatalf("upload %d of the over-limit key: %d, Retry-After %q, close %v; want 429 with Retry-After, closing",
				i, resp.StatusCode, resp.Header.Get("Retry-After"), resp.Close)
		}
	}
	if held := a.Server.BodiesHeld(); held != 0 {
		t.Errorf("the over-limit key's refused uploads hold %d bytes of the allowance, want 0", held)
	}
	status, body := r37aPost(t, url, "/v1/chat/completions", chat, "Authorization", "Bearer key-other")
	if status != 200 {
		t.Errorf("another key's request while the over-limit key's refused uploads are held: %d %s, want 200 "+
			"(a key over its rate should be refused before its body is held)", status, strings.TrimSpace(body))
	}
	// The window turns: the key is admitted again.
	clk.Advance(time.Minute)
	if status, body := r37aPost(t, url, "/v1/chat/completions", chat, "Authorization", "Bearer key-limited"); status != 200 {
		t.Errorf("the limited key after its minute turned: %d %s, want 200", status, body)
	}
}

// Review 37a: an upstream's own error message reaches the client on
// purpose, and was scrubbed of keys and addresses only. OpenAI's 429 names
// the operator's organisation id and what the whole organisation — every
// client key behind the gateway — has used of its per-minute window; the
// client's copy now hides both (redact, accountEdits).
func TestReview37aUpstreamRateLimitHidesTheOperatorsOrgAndUsage(t *testing.T) {
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "20"},
			Body: `{"error":{"message":"Rate limit reached for gpt-4o in organization org-Q7mZ2kXv9LpR3sT8 on tokens per min (TPM): ` +
				`Limit 30000, Used 29874, Requested 512. Please try again in 772ms.","type":"tokens","param":null,"code":"rate_limit_exceeded"}}`}
	})
	t.Cleanup(up.Close)
	url, _, _ := r37aGateway(t, teamAConfig("openai"), up, nil)
	status, body := r37aPost(t, url, "/v1/chat/completions", `{"model":"m","messages":[{"role":"user","content":"hi"}]}`,
		"Authorization", "Bearer key-team-a")
	t.Logf("client got %d %s", status, strings.TrimSpace(body))
	if strings.Contains(body, "org-Q7mZ2kXv9LpR3sT8") || strings.Contains(body, "Used 29874") {
		t.Errorf("a client key reads the operator's organisation id and the organisation's usage in the upstream's message")
	}
}

// Held: a client cannot raise its route's max_billable_attempts with the
// request header, and an over-rate key's count_tokens at an Anthropic
// route is refused before its upstream call.
func TestReview37aHeldBudgetHeaderAndCountTokens(t *testing.T) {
	slow := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Delay: 2 * time.Second, Body: upstreamtest.ChatJSON("m", "late")}
	})
	next := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("b", "second vendor")}
	})
	an := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if strings.HasSuffix(r.Path, "count_tokens") {
			return upstreamtest.Step{Body: `{"input_tokens":7}`}
		}
		return upstreamtest.Step{Body: claudeJSON()}
	})
	for _, s := range []*upstreamtest.Server{slow, next, an} {
		t.Cleanup(s.Close)
	}
	cfg := `
client_keys:
  - {name: team-a, key: key-team-a, rate: {requests_per_minute: 2}}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: sk-test-provider-key, timeout: 500ms}
  - {name: q, dialect: openai, base_url: "{q}", api_key: sk-test-provider-key2}
  - {name: an, dialect: anthropic, base_url: "{an}", api_key: sk-test-provider-key3}
targets:
  - {name: gpt, model: m, providers: [p]}
  - {name: other, model: b, providers: [q]}
  - {name: claude, model: claude-x, providers: [an]}
routes:
  - {name: strict, targets: [gpt, other], max_billable_attempts: 1}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	url, _, _ := r37aGatewayOf(t, cfg, map[string]*upstreamtest.Server{"p": slow, "q": next, "an": an}, clk)
	status, body := r37aPost(t, url, "/v1/chat/completions", `{"model":"strict","messages":[{"role":"user","content":"hi"}]}`,
		"Authorization", "Bearer key-team-a", "X-Detour-Max-Billable-Attempts", "5")
	if next.Calls() != 0 {
		t.Errorf("a request header raised max_billable_attempts: the second vendor was called after a billable timeout (%d %s)", status, body)
	}
	if status, body := r37aPost(t, url, "/v1/messages", `{"model":"claude","max_tokens":10,"messages":[{"role":"user","content":"hi"}]}`,
		"X-Api-Key", "key-team-a"); status != 200 {
		t.Fatalf("messages: %d %s", status, body)
	}
	before := an.Calls()
	status, body = r37aPost(t, url, "/v1/messages/count_tokens", `{"model":"claude","messages":[{"role":"user","content":"hi"}]}`,
		"X-Api-Key", "key-team-a")
	if an.Calls() != before {
		t.Errorf("an over-rate key's exact count_tokens reached the upstream: %d %s", status, body)
	}
	t.Logf("over-rate count_tokens: %d %s", status, strings.TrimSpace(body))
}
