package process

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// chatAs POSTs body to /v1/chat/completions presenting a client key.
func (g *gateway) chatAs(key, body string) *http.Response {
	g.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatalf("gateway %s: %v", g.name, err)
	}
	return resp
}

// postAs is post presenting a client key.
func (g *gateway) postAs(key, model string) reply {
	g.t.Helper()
	resp := g.chatAs(key, `{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: string(b)}
}

// budgetCfg is a gateway on Redis ({redis}, with {state}'s further state
// settings) whose client key ci (ci-Kq81Zt) may spend ${usd} a day, and
// whose target big is gpt-4o on {up} at $1000 per million tokens each way.
const budgetCfg = `
state: {store: redis, url: "{redis}"{state}}
client_keys:
  - {name: ci, key: ci-Kq81Zt, budget: {usd_per_day: {usd}}}
providers:
  - {name: main, dialect: openai, base_url: "{up}", api_key: sk-test}
targets:
  - {name: big, model: gpt-4o, providers: [main], price: {input: 1000, output: 1000}}
`

// budgetReplicas starts two replicas sharing one Redis with the client key
// ci (ci-Kq81Zt, $0.02 a day) and the target big (gpt-4o on upstream at
// $1000 per million tokens each way). A reaches Redis through a proxy that
// holds each command for 150ms, so its spends land late.
func budgetReplicas(t *testing.T, upstream string) (a, b *gateway) {
	t.Helper()
	rs := redistest.Start(t)
	late := redistest.StartProxy(t, rs.Addr())
	a = startGateway(t, "A", render(budgetCfg, map[string]string{"redis": late.URL(), "up": upstream, "state": "", "usd": "0.02"}))
	b = startGateway(t, "B", render(budgetCfg, map[string]string{"redis": rs.URL(), "up": upstream, "state": "", "usd": "0.02"}))
	late.SlowCommands(150 * time.Millisecond)
	return a, b
}

// Two real replicas on one real Redis enforce one client budget: what one
// spends, the other refuses — even when the client asks the other replica
// the moment it has an answer, and A's writes reach Redis late (A talks to
// Redis through a proxy that holds each command): a spend lands before
// the answer it pays for leaves.
func TestSharedClientBudget(t *testing.T) {
	t.Parallel()
	up := fake(t, ok("gpt-4o"))
	// Each answer is 5 input and 2 output tokens at $1000 per million: $0.007.
	a, b := budgetReplicas(t, up.URL)
	for i, g := range []*gateway{a, b, a} {
		if r := g.postAs("ci-Kq81Zt", "big"); r.Status != 200 {
			t.Fatalf("request %d on %s: %d %s", i+1, g.name, r.Status, r.Body)
		}
	}
	// $0.021 spent across both: B refuses, before calling the upstream.
	r := b.postAs("ci-Kq81Zt", "big")
	if r.Status != 429 || r.Header.Get("Retry-After") == "" || !strings.Contains(r.Body, "usd_per_day") {
		t.Fatalf("B after $0.021 of a $0.02 budget: %d %s (Retry-After %q)", r.Status, r.Body, r.Header.Get("Retry-After"))
	}
	if r := a.postAs("ci-Kq81Zt", "big"); r.Status != 429 {
		t.Fatalf("A: %d %s", r.Status, r.Body)
	}
	if n := up.Calls(); n != 3 {
		t.Errorf("upstream calls %d, want 3", n)
	}
	// Records name the client, never its key, and carry usage and cost.
	for _, g := range []*gateway{a, b} {
		for _, d := range g.decisions() {
			if d.Client != "ci" || d.Usage == nil || d.Usage.TotalTokens != 7 || !d.CostUSD.Known() {
				t.Errorf("%s: record client %q usage %+v cost %v", g.name, d.Client, d.Usage, d.CostUSD)
			}
		}
	}
	if strings.Contains(a.stderr.String()+b.stderr.String(), "ci-Kq81Zt") {
		t.Error("the client key reached a log")
	}
}

// streamAs streams a chat request presenting a client key and returns once
// the client has [DONE] (or the body ends), as an SDK does: the next
// request can follow the very moment the stream is over for the client.
func (g *gateway) streamAs(key, model string) (status int, sawDone bool) {
	g.t.Helper()
	resp := g.chatAs(key, `{"model":"`+model+`","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`)
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if sc.Text() == "data: [DONE]" {
			return resp.StatusCode, true
		}
	}
	return resp.StatusCode, false
}

// The same promise for a stream: its spend lands before the client sees
// its end ([DONE]), so a client that asks the other replica the moment a
// stream is over meets the spend, even though A reaches Redis late.
func TestSharedClientBudgetStream(t *testing.T) {
	t.Parallel()
	up := fake(t, upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", "a", "b")})
	// Each stream is 5 input and 2 output tokens at $1000 per million: $0.007.
	a, b := budgetReplicas(t, up.URL)
	for i, g := range []*gateway{a, b, a} {
		if status, done := g.streamAs("ci-Kq81Zt", "big"); status != 200 || !done {
			t.Fatalf("stream %d on %s: status %d, [DONE] %v", i+1, g.name, status, done)
		}
	}
	// $0.021 spent across both: B refuses, before calling the upstream.
	if status, _ := b.streamAs("ci-Kq81Zt", "big"); status != 429 {
		t.Fatalf("B after $0.021 of a $0.02 budget: %d", status)
	}
	if n := up.Calls(); n != 3 {
		t.Errorf("upstream calls %d, want 3", n)
	}
}

// state.timeout bounds the client limits' Redis operations as it does the
// health store's: through a Redis whose every command takes 300ms (a new
// connection's handshake alone then takes about a second), a budgeted key
// is counted in Redis under a 5s timeout, where the default 500ms would
// count it locally and log the outage.
func TestStateTimeoutBoundsClientLimits(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	slow := redistest.StartProxy(t, rs.Addr())
	up := fake(t, ok("gpt-4o"))
	g := startGateway(t, "A", render(budgetCfg, map[string]string{"redis": slow.URL(), "up": up.URL, "state": ", timeout: 5s", "usd": "10"}))
	slow.SlowCommands(300 * time.Millisecond)
	day := time.Now().UTC().Format("20060102") // the day the spend is counted in (a request across a UTC midnight: either)
	if r := g.postAs("ci-Kq81Zt", "big"); r.Status != 200 {
		t.Fatalf("%d %s", r.Status, r.Body)
	}
	slow.SlowCommands(0)
	if s := g.stderr.String(); strings.Contains(s, "limits: redis unreachable") {
		t.Errorf("the limits counted locally under a 5s state.timeout:\n%s", s)
	}
	n, err := rs.Client(t).Get(context.Background(), "detour:{client:ci}:usd:d:"+day).Int64()
	if after := time.Now().UTC().Format("20060102"); after != day && n == 0 {
		n, err = rs.Client(t).Get(context.Background(), "detour:{client:ci}:usd:d:"+after).Int64()
	}
	if err != nil || n != 7000 {
		t.Errorf("the day's spend in Redis: %d (%v), want 7000", n, err)
	}
}
