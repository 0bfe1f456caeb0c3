package process

// Operator review 54 (an operator of a shared Detour asking all afternoon "who spent what, where,
// and can I trust the figures?"): the console's Costs API, `detour usage` on the decision log and
// /metrics' detour_cost_usd_total, compared with each other and with the upstreams' own usage.

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Anthropic Messages answer with prompt caching (shape: platform.claude.com/docs/en/build-with-claude/prompt-caching,
// "Tracking cache performance": input_tokens, cache_creation_input_tokens, cache_read_input_tokens,
// cache_creation.ephemeral_5m_input_tokens / ephemeral_1h_input_tokens).
const op54Claude = `{"id":"msg_01XFDUDYJgAACzvnptvVoYEL","type":"message","role":"assistant","model":"claude-sonnet-4-5",` +
	`"content":[{"type":"text","text":"Hello!"}],"stop_reason":"end_turn","stop_sequence":null,` +
	`"usage":{"input_tokens":1000,"cache_creation_input_tokens":2000,"cache_read_input_tokens":3000,"output_tokens":500,` +
	`"cache_creation":{"ephemeral_5m_input_tokens":2000,"ephemeral_1h_input_tokens":0},"service_tier":"standard"}}`

// OpenAI chat.completion with cached input (platform.openai.com/docs/guides/prompt-caching:
// usage.prompt_tokens_details.cached_tokens).
const op54GPT = `{"id":"chatcmpl-op54","object":"chat.completion","created":1764489600,"model":"gpt-4o-2024-08-06",` +
	`"choices":[{"index":0,"message":{"role":"assistant","content":"Hi","refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
	`"usage":{"prompt_tokens":2000,"completion_tokens":100,"total_tokens":2100,"prompt_tokens_details":{"cached_tokens":1500,"audio_tokens":0},` +
	`"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`

// Gemini generateContent answer over 200k prompt tokens (ai.google.dev/api/generate-content#UsageMetadata).
const op54Gemini = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Summary."}]},"finishReason":"STOP","index":0}],` +
	`"usageMetadata":{"promptTokenCount":300000,"candidatesTokenCount":1000,"totalTokenCount":301000},"modelVersion":"gemini-2.5-pro"}`

const (
	op54ClaudeUSD = (1000*3 + 3000*0.3 + 2000*3.75 + 500*15) / 1e6 // 0.0189
	op54GPTUSD    = (500*2.5 + 1500*1.25 + 100*10) / 1e6           // 0.004125
	op54GeminiUSD = (300000*2.5 + 1000*15) / 1e6                   // 0.765
)

const op54Cfg = `
admin_keys: [op54-admin-key-0001]
client_keys:
  - {name: team-a, key: key-team-a-0001, budget: {usd_per_day: 50}}
  - {name: team-b, key: key-team-b-0001}
  - "key-bare-legacy-0001"
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: sk-ant-op54-aaaaaaaaaaaaaaaaaaaa}
  - {name: openai, dialect: openai, base_url: "{openai}/v1", api_key: sk-op54-bbbbbbbbbbbbbbbbbbbbbbbb}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: AIzaop54cccccccccccccccccccccccc}
  - {name: selfhost, dialect: openai, base_url: "{slow}/v1", api_key: sk-op54-dddddddddddddddddddddddd, timeout: 300ms}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic], price: {input: 3, output: 15, cached_input: 0.3, cache_write: 3.75}}
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10, cached_input: 1.25}}
  - {name: pro, model: gemini-2.5-pro, providers: [gemini], price: {input: 1.25, output: 10, long_context: {above: 200000, input: 2.5, output: 15}}}
  - {name: llama, model: llama-3.3-70b, providers: [selfhost], price: {input: 0.5, output: 1}}
routes:
  - {name: deep, targets: [llama, gpt]}
`

func op54Start(t *testing.T) *gateway {
	anth := fake(t, upstreamtest.Step{Body: op54Claude, Header: map[string]string{"Content-Type": "application/json"}})
	oa := fake(t, upstreamtest.Step{Body: op54GPT, Header: map[string]string{"Content-Type": "application/json"}})
	gem := fake(t, upstreamtest.Step{Body: op54Gemini, Header: map[string]string{"Content-Type": "application/json"}})
	slow := fake(t, upstreamtest.Step{Delay: 2 * time.Second, Body: upstreamtest.ChatJSON("llama-3.3-70b", "late")})
	return startGateway(t, "op54", render(op54Cfg, map[string]string{"anthropic": anth.URL, "openai": oa.URL, "gemini": gem.URL, "slow": slow.URL}))
}

func (g *gateway) op54Chat(key, model string) {
	g.t.Helper()
	body := `{"model":"` + model + `","messages":[{"role":"user","content":"hi"}]}`
	req, _ := http.NewRequest("POST", g.URL+"/v1/chat/completions", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		g.t.Fatalf("%s %s: %d %s", key, model, resp.StatusCode, b)
	}
}

func (g *gateway) op54Admin(path string) []byte {
	g.t.Helper()
	req, _ := http.NewRequest("GET", g.URL+path, nil)
	req.Header.Set("Authorization", "Bearer op54-admin-key-0001")
	resp, err := client.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return b
}

type op54Row struct {
	Key      string  `json:"key"`
	Requests int     `json:"requests"`
	Cost     float64 `json:"cost_usd"`
	Unknown  int     `json:"cost_unknown"`
	Est      float64 `json:"estimated_usd"`
}

func (g *gateway) op54Costs(by string) (rows []op54Row, total op54Row) {
	var v struct {
		Rows  []op54Row `json:"rows"`
		Total op54Row   `json:"total"`
	}
	b := g.op54Admin("/ui/api/costs?by=" + by)
	if err := json.Unmarshal(b, &v); err != nil {
		g.t.Fatalf("costs: %v %s", err, b)
	}
	return v.Rows, v.Total
}

func (g *gateway) op54Usage(by string) string {
	out, err := exec.Command(detourBin, "usage", "-f", g.decPath, "--by", by).CombinedOutput()
	if err != nil {
		g.t.Fatalf("detour usage: %v %s", err, out)
	}
	return string(out)
}

// op54Restart runs `detour serve` again on old's configuration and decision log (old has exited).
func op54Restart(t *testing.T, old *gateway) *gateway {
	t.Helper()
	g := &gateway{t: t, name: old.name + "-restarted", addr: old.addr, URL: old.URL, cfgPath: old.cfgPath, decPath: old.decPath,
		stderr: &testutil.Buffer{}, exited: make(chan struct{})}
	g.cmd = exec.Command(detourBin, "serve", "-c", g.cfgPath)
	g.cmd.Stdout, g.cmd.Stderr = io.Discard, g.stderr
	if err := g.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = g.cmd.Wait(); close(g.exited) }()
	t.Cleanup(func() {
		select {
		case <-g.exited:
		default:
			_ = g.cmd.Process.Kill()
			<-g.exited
		}
	})
	g.awaitServing()
	return g
}

// docs/config.md, "Usage and cost": "`--since today` and `month` are the UTC windows client budgets
// count in." The budgets count a request's spend when it ends (docs/config.md, client_keys: "A
// request counts against the limits its key has when it ends"; a restart restores them from the
// log by each record's end, internal/app/budgets.go budgetRecord.end). `detour usage --since` (and
// the console's Costs page, both query.Sums fed by cmd/detour/usage.go sumUsage / console.addCost)
// filter and bucket by the record's `time`, when the request *began*. A request that began at
// 23:59:40 UTC and answered 40 s later (a long answer or stream: ordinary) is today's spend on the
// Keys page and against the budget, and yesterday's in `detour usage --since today`.
//
// The record is one the gateway wrote for a real request (gpt, $0.004125), with only its `time`
// moved to 20 s before today's UTC midnight and its `ms` to 40,000 — as a 40 s answer begun then
// would have been written.
func TestOp54UsageSinceTodayAgreesWithTheBudgetsDay(t *testing.T) {
	g := op54Start(t)
	g.op54Chat("key-team-a-0001", "gpt")
	poll(t, 5*time.Second, "1 record", func() bool { return len(g.decisions()) == 1 })
	if code := g.stop(); code != 0 {
		t.Fatalf("stop: exit %d", code)
	}
	b, err := os.ReadFile(g.decPath)
	if err != nil {
		t.Fatal(err)
	}
	var rec map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(strings.Split(string(b), "\n")[0])), &rec); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	midnight := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	// The restart, the Keys page and `detour usage --since today` below must
	// all read the same UTC day as midnight's: a minute either side of a
	// midnight, "today" may be another day by the time they run.
	if now.Sub(midnight) < time.Minute || midnight.Add(24*time.Hour).Sub(now) < time.Minute {
		t.Skip("too close to midnight")
	}
	rec["time"] = midnight.Add(-20 * time.Second).Format(time.RFC3339Nano)
	rec["ms"] = 40000.0
	line, _ := json.Marshal(rec)
	if err := os.WriteFile(g.decPath, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}

	g = op54Restart(t, g)
	var keys struct {
		Keys []struct {
			Name   string `json:"name"`
			Limits []struct {
				Limit string  `json:"limit"`
				Used  float64 `json:"used"`
			} `json:"limits"`
		} `json:"keys"`
	}
	if err := json.Unmarshal(g.op54Admin("/ui/api/keys"), &keys); err != nil {
		t.Fatal(err)
	}
	budgetToday := -1.0
	for _, k := range keys.Keys {
		if k.Name == "team-a" && len(k.Limits) > 0 {
			budgetToday = k.Limits[0].Used
		}
	}
	out, err := exec.Command(detourBin, "usage", "-f", g.decPath, "--since", "today").CombinedOutput()
	if err != nil {
		t.Fatalf("detour usage: %v %s", err, out)
	}
	t.Logf("Keys page, team-a spend today (UTC): $%.6f\n`detour usage --since today`:\n%s", budgetToday, out)
	if budgetToday < op54GPTUSD-1e-9 {
		t.Fatalf("the budget did not count the request today (%.6f): the probe's premise is wrong", budgetToday)
	}
	if !strings.Contains(string(out), "team-a") || !strings.Contains(string(out), "0.004125") {
		t.Errorf("team-a's budget counts $%.6f today, but `detour usage --since today` (docs: \"the UTC windows client budgets count in\") shows none of it:\n%s", budgetToday, out)
	}
}

// Operator review 54, F4. An Anthropic stream that says message_start (input_tokens 50,000) and
// then `event: error` overloaded_error before any content (Anthropic's streaming docs, "Error
// events") is not billable (docs/config.md, rate.tokens_per_minute: "an attempt that is not
// billable (docs/behaviour.md, budgets: an overload or error before a stream's first content,
// say) counts none, whatever usage it reported"); Detour retries it once and fails over to a second
// Anthropic provider, which answers (5,100 in, 15 out: $0.015525). The request's cost is right, and
// the key's tokens-per-minute counter counts 5,115. But the Costs page (and `detour usage`, and
// detour_tokens_total) add the two failed attempts' 100,000 input tokens to the key's "Input
// tokens": 105,100 tokens beside a cost of $0.0155 — priced at the target's $3/M that is $0.315, so
// tokens × price no longer reproduces the cost, and the Costs page and the Keys page disagree about
// the key's tokens. Tokens nobody bills should not sit in the column priced beside them (or should
// sit in a column of their own).
func TestOp54CostsTokensAreTheTokensBilled(t *testing.T) {
	ev := func(name, data string) string { return "event: " + name + "\ndata: " + data }
	over := upstreamtest.Step{Events: []string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg_01op54","type":"message","role":"assistant","content":[],"model":"claude-sonnet-4-5","stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":50000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}}`),
		ev("error", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`),
	}}
	anth := fake(t, over)
	anth2 := fake(t, op54ClaudeStream("claude-sonnet-4-5", 5100, false))
	oa := fake(t, ok("gpt-4o"))
	cfg := strings.Replace(op54StreamCfg, "budget: {usd_per_day: 50}}", "budget: {usd_per_day: 50}, rate: {tokens_per_minute: 10000000}}", 1)
	g := startGateway(t, "op54t", render(cfg, map[string]string{"anthropic": anth.URL, "anthropic2": anth2.URL, "openai": oa.URL}))
	g.op54Stream("key-team-a-0001", "cont")
	poll(t, 5*time.Second, "1 record", func() bool { return len(g.decisions()) == 1 })
	var costs struct {
		Rows []struct {
			Key   string  `json:"key"`
			Input int     `json:"input_tokens"`
			Out   int     `json:"output_tokens"`
			Cost  float64 `json:"cost_usd"`
		} `json:"rows"`
	}
	if err := json.Unmarshal(g.op54Admin("/ui/api/costs?by=client"), &costs); err != nil || len(costs.Rows) != 1 {
		t.Fatalf("costs: %v %+v", err, costs)
	}
	keys := string(g.op54Admin("/ui/api/keys"))
	usage := g.op54Usage("client")
	metric := g.metricAdmin("detour_tokens_total", `client="team-a"`, `kind="input"`)
	r := costs.Rows[0]
	t.Logf("Costs page: team-a input %d output %d cost $%.6f\nKeys page: %s\ndetour usage:\n%s\ndetour_tokens_total{client=team-a,kind=input} %v", r.Input, r.Out, r.Cost, keys, usage, metric)
	if r.Input != 5100 {
		t.Errorf("the Costs page says team-a used %d input tokens for $%.6f; the upstreams billed 5,100 (the tokens-per-minute limit counted 5,115 in+out); %d are two overloaded attempts nobody bills", r.Input, r.Cost, r.Input-5100)
	}
}

// metricAdmin is metric with the admin key.
func (g *gateway) metricAdmin(name string, labels ...string) float64 {
	var sum float64
next:
	for _, line := range strings.Split(string(g.op54Admin("/metrics")), "\n") {
		if !strings.HasPrefix(line, name+"{") {
			continue
		}
		for _, l := range labels {
			if !strings.Contains(line, l) {
				continue next
			}
		}
		f := strings.Fields(line)
		var v float64
		if err := json.Unmarshal([]byte(f[len(f)-1]), &v); err == nil {
			sum += v
		}
	}
	return sum
}
