package e2e

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Client keys, usage and cost (docs/config.md, client_keys and price):
// what a team sharing one gateway relies on to know who spent what and to
// stop one runaway script.

// startClock is start with the limits on clk.
func startClock(t *testing.T, yaml string, fs map[string]*upstreamtest.Server, clk *testutil.Clock) *gateway {
	t.Helper()
	var pairs []string
	for name, s := range fs {
		pairs = append(pairs, "{"+name+"}", s.URL)
	}
	yaml = strings.NewReplacer(pairs...).Replace(yaml)
	recs := gatewaytest.NewRecords()
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{Decisions: recs, Clock: clk.Now,
		Backoff: func() time.Duration { return 10 * time.Millisecond }})
	return &gateway{URL: url, recs: records{recs}, app: a}
}

// sdkAs is an SDK client presenting key.
func sdkAs(g *gateway, key string) *openai.Client {
	c := openai.NewClient(option.WithBaseURL(g.URL+"/v1/"), option.WithAPIKey(key), option.WithMaxRetries(0))
	return &c
}

// asksUsage reports whether an upstream request asked for stream usage.
func asksUsage(body []byte) bool {
	var b struct {
		StreamOptions struct {
			IncludeUsage bool `json:"include_usage"`
		} `json:"stream_options"`
	}
	return json.Unmarshal(body, &b) == nil && b.StreamOptions.IncludeUsage
}

// likeOpenAI streams as OpenAI does: the usage chunk only when asked for.
// cached is the prompt_tokens_details.cached_tokens it reports.
func likeOpenAI(model string, cached int, parts ...string) upstreamtest.Script {
	return func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if !r.Streamed() {
			return upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"` + model +
				`","choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Join(parts, "") +
				`"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":200,"total_tokens":1200,` +
				`"prompt_tokens_details":{"cached_tokens":` + itoa(cached) + `}}}`}
		}
		evs := upstreamtest.ChatStream(model, parts...)
		usage := evs[len(evs)-2]
		evs = append(evs[:len(evs)-2:len(evs)-2], "[DONE]")
		if asksUsage(r.Body) {
			usage = strings.Replace(usage, `"usage":{"prompt_tokens":5`, `"usage":{"prompt_tokens_details":{"cached_tokens":`+itoa(cached)+`},"prompt_tokens":5`, 1)
			evs = append(evs[:len(evs)-1:len(evs)-1], usage, "[DONE]")
		}
		return upstreamtest.Step{Events: evs}
	}
}

const pricedCfg = `
client_keys:
  - {name: team-a, key: key-team-a, routes: [deep],
     rate: {requests_per_minute: 2}}
  - {name: team-b, key: key-team-b, routes: [cheap], budget: {usd_per_day: 0.01, usd_per_month: 1}}
  - key-admin
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
  - {name: backup, dialect: openai, base_url: "{backup}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.50, output: 10.00, cached_input: 1.25}}
  - {name: mini, model: gpt-4o-mini, providers: [backup], price: {input: 0.15, output: 0.60}}
routes:
  - {name: deep, targets: [gpt]}
  - {name: cheap, targets: [mini]}
`

func TestUsageAndCostInRecords(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": likeOpenAI("gpt-4o", 400, "hel", "lo"),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, pricedCfg, fs, clk)
	c := sdkAs(g, "key-admin")

	// Plain: 600 uncached at $2.50, 400 cached at $1.25, 200 out at $10 per million.
	if _, err := c.Chat.Completions.New(context.Background(), hello("deep")); err != nil {
		t.Fatal(err)
	}
	d := g.recs.wait(t, 1)
	const plainCost = (600*2.50 + 400*1.25 + 200*10.0) / 1e6
	if d.Client != "key:fb6a4340" { // a bare key is named by its SHA-256's first 8 hex digits
		t.Errorf("client %q, want key:fb6a4340", d.Client)
	}
	a := d.Attempts[0]
	if a.Usage == nil || a.Usage.PromptTokens != 1000 || a.Usage.CompletionTokens != 200 || a.Usage.CachedTokens != 400 ||
		!a.CostUSD.Known() || !near(float64(*a.CostUSD), plainCost) || a.CostUnknown {
		t.Errorf("attempt usage %+v cost %v", a.Usage, a.CostUSD)
	}
	if d.Usage == nil || d.Usage.TotalTokens != 1200 || !d.CostUSD.Known() || !near(float64(*d.CostUSD), plainCost) {
		t.Errorf("request usage %+v cost %v", d.Usage, d.CostUSD)
	}

	// Streamed, the client not asking for usage: the gateway asks, records
	// it, and the client never sees the usage-only chunk.
	s := c.Chat.Completions.NewStreaming(context.Background(), hello("deep"))
	acc := openai.ChatCompletionAccumulator{}
	for s.Next() {
		ch := s.Current()
		if len(ch.Choices) == 0 {
			t.Errorf("a chunk without choices reached the client: %s", ch.RawJSON())
		}
		acc.AddChunk(ch)
	}
	if err := s.Err(); err != nil {
		t.Fatal(err)
	}
	if acc.Choices[0].Message.Content != "hello" || acc.Usage.TotalTokens != 0 {
		t.Errorf("client saw %q, usage %+v", acc.Choices[0].Message.Content, acc.Usage)
	}
	if reqs := fs["openai"].Requests(); !asksUsage(reqs[len(reqs)-1].Body) {
		t.Errorf("the upstream was not asked for usage: %s", reqs[len(reqs)-1].Body)
	}
	d = g.recs.wait(t, 2)
	const streamCost = (5*1.25 + 2*10.0) / 1e6 // 5 prompt tokens, all cached; 2 out
	if d.Usage == nil || d.Usage.PromptTokens != 5 || d.Usage.CompletionTokens != 2 || d.Usage.CachedTokens != 5 ||
		!d.CostUSD.Known() || !near(float64(*d.CostUSD), streamCost) {
		t.Errorf("streamed record usage %+v cost %v", d.Usage, d.CostUSD)
	}

	// A client that asks for usage gets the chunk.
	r := g.post(t, "deep", `,"stream":true,"stream_options":{"include_usage":true}`, "Authorization", "Bearer key-admin")
	if !strings.Contains(string(r.Body), `"choices":[],"usage":{`) {
		t.Errorf("the client asked for usage and did not get it:\n%s", r.Body)
	}
	// One that sets other stream options keeps them, and gets no usage chunk.
	r = g.post(t, "cheap", `,"stream":true,"stream_options":{"include_obfuscation":false}`, "Authorization", "Bearer key-admin")
	if strings.Contains(string(r.Body), `"choices":[]`) || !strings.Contains(string(r.Body), "[DONE]") {
		t.Errorf("usage chunk for a client that did not ask:\n%s", r.Body)
	}
	reqs := fs["backup"].Requests()
	if body := string(reqs[len(reqs)-1].Body); !asksUsage([]byte(body)) || !strings.Contains(body, `"include_obfuscation":false`) {
		t.Errorf("upstream body: %s", body)
	}
	if d := g.recs.wait(t, 4); d.Usage == nil || d.Usage.TotalTokens != 6 || !d.CostUSD.Known() {
		t.Errorf("record of the cheap stream: usage %+v cost %v", d.Usage, d.CostUSD)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// A billable attempt whose usage never came is recorded as unknown, never zero.
func TestCutStreamCostIsUnknown(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": script(upstreamtest.Step{Events: chunks("gpt-4o", "half an "), Cut: true}),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	g := startClock(t, pricedCfg, fs, testutil.NewClock(time.Now()))
	r := g.post(t, "deep", `,"stream":true`, "Authorization", "Bearer key-admin")
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	b, _ := json.Marshal(d)
	if !d.CostUnknown || !d.Attempts[0].CostUnknown || !d.Attempts[0].Billable ||
		!strings.Contains(string(b), `"cost_usd":null,"cost_unknown":true`) {
		t.Errorf("record of a cut stream: %s", b)
	}
}

func TestClientKeyRoutes(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": likeOpenAI("gpt-4o", 0, "x"),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	g := startClock(t, pricedCfg, fs, testutil.NewClock(time.Now()))
	// team-a may call deep and its target, not cheap nor mini: 404 as if unknown.
	for _, model := range []string{"cheap", "mini"} {
		r := g.post(t, model, "", "Authorization", "Bearer key-team-a")
		r.wantStatus(t, 404)
		if msg := r.errMessage(t); !strings.Contains(msg, "unknown model") || strings.Contains(msg, "cheap") && model != "cheap" || strings.Contains(msg, "mini") && model != "mini" {
			t.Errorf("%s: %q names what team-a may not call", model, msg)
		}
	}
	g.post(t, "gpt", "", "Authorization", "Bearer key-team-a").wantStatus(t, 200)
	r := g.raw(t, http.MethodGet, "/v1/models", "", "Authorization", "Bearer key-team-a")
	if b := string(r.Body); !strings.Contains(b, `"id":"deep"`) || !strings.Contains(b, `"id":"gpt"`) || strings.Contains(b, "cheap") || strings.Contains(b, "mini") {
		t.Errorf("team-a's /v1/models: %s", b)
	}
	g.post(t, "cheap", "", "Authorization", "Bearer wrong").wantStatus(t, 401)
	if n := fs["backup"].Calls(); n != 0 {
		t.Errorf("cheap's upstream was called %d times", n)
	}
}

func TestClientKeyRateLimit(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": likeOpenAI("gpt-4o", 0, "x"),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 20, 0, time.UTC))
	g := startClock(t, pricedCfg, fs, clk)
	c := sdkAs(g, "key-team-a")
	for i := range 2 {
		if _, err := c.Chat.Completions.New(context.Background(), hello("deep")); err != nil {
			t.Fatalf("request %d: %v", i+1, err)
		}
	}
	_, err := c.Chat.Completions.New(context.Background(), hello("deep"))
	var apiErr *openai.Error
	if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Response.Header.Get("Retry-After") != "40" ||
		apiErr.Response.Header.Get("X-Should-Retry") != "" || // 40 s: the SDK's retry may be served
		!strings.Contains(apiErr.Message, "requests_per_minute") || apiErr.Code != "client_rate_limit_exceeded" {
		t.Fatalf("3rd request in the minute: %v", err)
	}
	if n := fs["openai"].Calls(); n != 2 {
		t.Errorf("upstream calls %d, want 2: a refused request calls nothing", n)
	}
	// Another key is not limited by team-a's rate.
	if _, err := sdkAs(g, "key-admin").Chat.Completions.New(context.Background(), hello("deep")); err != nil {
		t.Fatal(err)
	}
	clk.Set(time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC))
	if _, err := c.Chat.Completions.New(context.Background(), hello("deep")); err != nil {
		t.Fatalf("next minute: %v", err)
	}
	if v := metricValue(t, g, `detour_limit_refusals_total{client="team-a",limit="requests_per_minute"}`); v != "1" {
		t.Errorf("refusals metric %q", v)
	}
}

func TestClientKeyDailyBudget(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": likeOpenAI("gpt-4o", 0, "x"),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 18, 0, 0, 0, time.UTC))
	g := startClock(t, pricedCfg, fs, clk)
	c := sdkAs(g, "key-team-b")
	// Each plain answer costs 1000*0.15+200*0.60 = $0.00027: 37 fit in $0.01.
	n := 0
	for ; n < 100; n++ {
		if _, err := c.Chat.Completions.New(context.Background(), hello("cheap")); err != nil {
			var apiErr *openai.Error
			if !errors.As(err, &apiErr) || apiErr.StatusCode != 429 || apiErr.Response.Header.Get("Retry-After") != "21600" ||
				apiErr.Response.Header.Get("X-Should-Retry") != "false" || // six hours: not a retry's wait
				apiErr.Code != "client_budget_exceeded" || !strings.Contains(apiErr.Message, "usd_per_day") {
				t.Fatalf("request %d: %v", n+1, err)
			}
			break
		}
	}
	if n != 38 { // the 38th brought spend to $0.01026; the 39th is refused
		t.Errorf("%d requests before the budget refused one, want 38", n)
	}
	clk.Set(time.Date(2026, 12, 1, 23, 59, 59, 0, time.UTC))
	if _, err := c.Chat.Completions.New(context.Background(), hello("cheap")); err == nil {
		t.Fatal("admitted before the day turned")
	}
	clk.Set(time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC))
	if _, err := c.Chat.Completions.New(context.Background(), hello("cheap")); err != nil {
		t.Fatalf("the next day: %v", err)
	}
}

// metricValue reads one sample of /metrics.
func metricValue(t *testing.T, g *gateway, series string) string {
	t.Helper()
	r := g.raw(t, http.MethodGet, "/metrics", "", "Authorization", "Bearer key-admin")
	for _, l := range strings.Split(string(r.Body), "\n") {
		if strings.HasPrefix(l, series+" ") {
			return strings.TrimPrefix(l, series+" ")
		}
	}
	return ""
}

// An upstream that answers a stream request whole: the client gets it as a
// stream, with the usage chunk only if it asked for it; the record has the usage.
func TestWholeAnswerToStreamUsage(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": script(ok("gpt-4o", "whole")),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	g := startClock(t, pricedCfg, fs, testutil.NewClock(time.Now()))
	r := g.post(t, "deep", `,"stream":true`, "Authorization", "Bearer key-admin")
	if r.Status != 200 || strings.Contains(string(r.Body), `"choices":[]`) || !strings.Contains(string(r.Body), "whole") {
		t.Errorf("client that did not ask got:\n%s", r.Body)
	}
	if d := g.recs.wait(t, 1); d.Usage == nil || d.Usage.TotalTokens != 7 || !d.CostUSD.Known() {
		t.Errorf("record usage %+v cost %v", d.Usage, d.CostUSD)
	}
	r = g.post(t, "deep", `,"stream":true,"stream_options":{"include_usage":true}`, "Authorization", "Bearer key-admin")
	if !strings.Contains(string(r.Body), `"choices":[],"id"`) && !strings.Contains(string(r.Body), `"choices":[]`) {
		t.Errorf("client that asked got no usage:\n%s", r.Body)
	}
}

// A key_sha256 entry accepts the key whose SHA-256 it holds, and only that;
// metrics count tokens and cost by its name.
func TestClientKeySHA256AndMetrics(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": likeOpenAI("gpt-4o", 400, "x"),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	sum := sha256.Sum256([]byte("ci-Wm27Lp"))
	cfg := strings.Replace(pricedCfg, "  - key-admin\n", "  - key-admin\n  - {name: ci, key_sha256: \""+hex.EncodeToString(sum[:])+"\"}\n", 1)
	g := startClock(t, cfg, fs, testutil.NewClock(time.Now()))
	g.post(t, "deep", "", "Authorization", "Bearer ci-Wm27Lp").wantStatus(t, 200)
	g.post(t, "deep", "", "Authorization", "Bearer "+hex.EncodeToString(sum[:])).wantStatus(t, 401)
	if d := g.recs.wait(t, 1); d.Client != "ci" {
		t.Errorf("client %q", d.Client)
	}
	for series, want := range map[string]string{
		`detour_tokens_total{client="ci",kind="input",provider="openai",route="deep",target="gpt"}`:        "600",
		`detour_tokens_total{client="ci",kind="cached_input",provider="openai",route="deep",target="gpt"}`: "400",
		`detour_tokens_total{client="ci",kind="output",provider="openai",route="deep",target="gpt"}`:       "200",
		`detour_cost_usd_total{client="ci",provider="openai",route="deep",target="gpt"}`:                   "0.004",
	} {
		if got := metricValue(t, g, series); got != want {
			t.Errorf("%s = %q, want %s", series, got, want)
		}
	}
}

// A reload keeps the counts: a key at its rate stays there, and a lowered
// limit applies at once.
func TestClientLimitsSurviveReload(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"openai": likeOpenAI("gpt-4o", 0, "x"),
		"backup": likeOpenAI("gpt-4o-mini", 0, "x"),
	})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, pricedCfg, fs, clk)
	for range 2 {
		g.post(t, "deep", "", "Authorization", "Bearer key-team-a").wantStatus(t, 200)
	}
	yaml := strings.NewReplacer("{openai}", fs["openai"].URL, "{backup}", fs["backup"].URL).Replace(pricedCfg)
	if err := g.app.Reload(gatewaytest.Config(t, yaml)); err != nil {
		t.Fatal(err)
	}
	g.post(t, "deep", "", "Authorization", "Bearer key-team-a").wantStatus(t, 429)
	clk.Set(time.Date(2026, 12, 1, 10, 1, 0, 0, time.UTC))
	g.post(t, "deep", "", "Authorization", "Bearer key-team-a").wantStatus(t, 200)
	lower := strings.Replace(yaml, "requests_per_minute: 2", "requests_per_minute: 1", 1)
	if err := g.app.Reload(gatewaytest.Config(t, lower)); err != nil {
		t.Fatal(err)
	}
	g.post(t, "deep", "", "Authorization", "Bearer key-team-a").wantStatus(t, 429)
}
