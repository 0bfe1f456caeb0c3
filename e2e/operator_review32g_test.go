package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32g: what the operator is told (records, /v1/health, /metrics).

// anthropicCut is an Anthropic stream that reports its usage at its start
// (input 1000, output 1), streams text, and is cut before message_delta.
func anthropicCut() upstreamtest.Step {
	return upstreamtest.Step{Cut: true, Events: []string{
		"event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"type\":\"message\",\"role\":\"assistant\",\"model\":\"claude-x\",\"content\":[],\"stop_reason\":null,\"usage\":{\"input_tokens\":1000,\"output_tokens\":1}}}",
		"event: content_block_start\ndata: {\"type\":\"content_block_start\",\"index\":0,\"content_block\":{\"type\":\"text\",\"text\":\"\"}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("word ", 400) + "\"}}",
		"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"" + strings.Repeat("more ", 400) + "\"}}",
	}}
}

// A stream cut mid-way at a priced Claude target. The upstream's count is
// the one message_start carried (output 1): the record keeps the cost of
// that count beside usage.incomplete (docs/config.md, "Usage and cost"),
// and /metrics must not present that lower bound as a cost known in full
// (review 32g): it counts in detour_cost_unknown_total as well.
func TestReview32gCutAnthropicStreamCostIsNotPresentedAsKnown(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anth": script(anthropicCut())})
	g := start(t, `
client_keys: [{name: team, key: key-team}]
providers:
  - {name: anth, dialect: anthropic, base_url: "{anth}", api_key: `+secret+`}
targets:
  - {name: claude, model: claude-x, providers: [anth], price: {input: 3, output: 15}}
routes:
  - {name: r, targets: [claude]}
`, fs)
	r := g.post(t, "r", `,"stream":true`, "Authorization", "Bearer key-team")
	r.wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	b, _ := json.Marshal(d)
	a := d.Attempts[0]
	if !a.Billable {
		t.Fatalf("cut stream not billable: %s", b)
	}
	if a.Usage == nil || !a.Usage.Incomplete || d.Usage == nil || !d.Usage.Incomplete || !a.CostUSD.Known() {
		t.Errorf("a cut stream's partial count is not marked incomplete beside its lower-bound cost\nrecord: %s", b)
	}
	m := string(g.raw(t, http.MethodGet, "/metrics", "").Body)
	if !strings.Contains(m, `detour_cost_unknown_total{client="team"`) {
		var lines []string
		for _, l := range strings.Split(m, "\n") {
			if strings.HasPrefix(l, "detour_cost") {
				lines = append(lines, l)
			}
		}
		t.Errorf("/metrics counts no unknown cost for the cut stream:\n%s", strings.Join(lines, "\n"))
	}
}

// A Retry-After cooldown shows its until-time in /v1/health (a check that held).
func TestReview32gRateLimitUntil(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "30"}, Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}),
		"q": script(ok("model-b", "b")),
	})
	g := start(t, "retry: {max_wait: 1s}\n"+twoTargets, fs)
	before := time.Now()
	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	wantSteps(t, d, "a/p rate_limited next_target", "b/q ok done")
	after := time.Now()
	e := g.health(t).Endpoints[0]
	if e.State != "cooling" || e.CooldownUntil == nil || e.CooldownUntil.Before(before.Add(30*time.Second)) || e.CooldownUntil.After(after.Add(30*time.Second)) {
		t.Errorf("after Retry-After: 30: %+v", e)
	}
}

// metricLines returns the /metrics lines that start with prefix.
func metricLines(t *testing.T, g *gateway, prefix string) []string {
	t.Helper()
	var out []string
	for _, l := range strings.Split(string(g.raw(t, http.MethodGet, "/metrics", "").Body), "\n") {
		if strings.HasPrefix(l, prefix) {
			out = append(out, l)
		}
	}
	return out
}

// Configured names are the operator's own (config accepts any name without
// blanks or control characters): a provider named in Chinese, or a long
// target name, must still be told apart in /metrics. Here two endpoints,
// one cooling (a gone model) and one healthy, must show as two endpoints in
// detour_endpoint_state, not one "other" whose state is whichever was set
// last.
func TestReview32gConfiguredNamesAreNotFoldedIntoOther(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"gone": script(corpus(t, "openrouter-no-endpoints-found-free")),
		"up":   script(ok("model-b", "hi")),
	})
	long := "claude-sonnet-4-5-20250929-extended-thinking-eu-west-1-provisioned" // 67 bytes
	g := start(t, `
providers:
  - {name: 通义, dialect: openai, base_url: "{gone}", api_key: `+secret+`}
  - {name: 智谱, dialect: openai, base_url: "{up}", api_key: `+secret+`}
targets:
  - {name: `+long+`, model: model-a, providers: [通义]}
  - {name: 深度, model: model-b, providers: [智谱]}
routes:
  - {name: r, strategy: fastest, targets: [`+long+`, 深度]}
`, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), long+"/通义 unavailable next_target", "深度/智谱 ok done")
	lines := metricLines(t, g, "detour_endpoint_state{")
	pairs := map[string]bool{}
	for _, l := range lines {
		i, j := strings.Index(l, "provider="), strings.Index(l, ",state=")
		k := strings.Index(l, "target=")
		pairs[l[i:j]+" "+l[k:strings.LastIndex(l, "}")]] = true
	}
	if len(pairs) != 2 {
		t.Errorf("two configured endpoints show as %d in detour_endpoint_state:\n%s", len(pairs), strings.Join(lines, "\n"))
	}
	att := metricLines(t, g, "detour_attempts_total{")
	if strings.Contains(strings.Join(att, "\n"), `"other"`) {
		t.Errorf("attempts at configured endpoints counted under \"other\":\n%s", strings.Join(att, "\n"))
	}
}

// A client that leaves during an attempt: the record calls the attempt
// canceled (console, detour decisions: class "canceled"); /metrics must say
// the same, not "other" (a label no documentation names).
func TestReview32gCanceledAttemptIsNotOtherInMetrics(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Delay: 30 * time.Second, Body: upstreamtest.ChatJSON("model-a", "late")}),
		"q": script(ok("model-b", "b")),
	})
	g := start(t, twoTargets, fs)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	done := make(chan struct{})
	go func() {
		defer close(done)
		if resp, err := http.DefaultClient.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	waitCalls(t, fs["p"], 1)
	cancel()
	<-done
	wantSteps(t, g.recs.wait(t, 1), "a/p - stop")
	att := strings.Join(metricLines(t, g, "detour_attempts_total{"), "\n")
	if !strings.Contains(att, `class="canceled"`) {
		t.Errorf("the canceled attempt in /metrics:\n%s", att)
	}
}

// OpenRouter answers a request whose max_tokens the account's balance
// cannot cover with a 402 "requires more credits, or fewer max_tokens … can
// only afford N": the same account serves every smaller request. One client
// asking max_tokens 1,000,000 must not cool the whole account for everyone
// for account_cooldown nor page the operator: like a per-request spend cap
// (单次消费上限, overflow in docs/behaviour.md), this request is too costly
// here, the account is not out.
func TestReview32gClientsMaxTokensDoesNotCoolOrPageTheAccount(t *testing.T) {
	const afford = `{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 1000000 tokens, but can only afford 10114. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account","code":402,"metadata":{"provider_name":null}},"user_id":"user_2abc"}`
	h := newHook(t)
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if strings.Contains(string(r.Body), `"max_tokens":1000000`) {
				return upstreamtest.Step{Status: 402, Body: afford}
			}
			return ok("model-a", "served")
		},
		"p2": script(corpus(t, "openai-insufficient-quota-429")),
		"q":  script(ok("model-b", "b")),
	})
	g := startEcho(t, h.URL, fs)
	g.post(t, "r", `,"max_tokens":1000000`).wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	t.Logf("attempts %q transitions %+v", steps(d), d.Transitions)
	for _, acc := range g.health(t).Accounts {
		if acc.Name == "p" && acc.State != "healthy" {
			t.Errorf("one client's max_tokens put account p %s (%s) until %v", acc.State, acc.LastClass, acc.CooldownUntil)
		}
	}
	// An ordinary request now goes to a, which serves it.
	g.post(t, "r", "").wantStatus(t, 200)
	if got := steps(g.recs.wait(t, 2)); strings.Join(got, ",") != "a/p ok done" {
		t.Errorf("the next ordinary request: %q, want a/p ok done", got)
	}
	wantOnlyControlAlert(t, g, h, "", "a client's max_tokens")
}

// Two replicas over one Redis: a cooldown replica A learned is shown by B,
// with the same until-time, in /v1/health and /metrics (a check that held).
func TestReview32gSharedHealthOverRedis(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": script(upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "30"}, Body: `{"error":{"message":"Rate limit reached for requests","type":"requests","code":"rate_limit_exceeded"}}`}),
		"q": script(ok("model-b", "b")),
	})
	cfg := "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\nretry: {max_wait: 1s}\n" + twoTargets
	a, b := start(t, cfg, fs), start(t, cfg, fs)
	a.post(t, "r", "").wantStatus(t, 200)
	a.recs.wait(t, 1)
	ua, ub := a.health(t).Endpoints[0], b.health(t).Endpoints[0]
	if ub.State != "cooling" || ua.CooldownUntil == nil || ub.CooldownUntil == nil || !ua.CooldownUntil.Equal(*ub.CooldownUntil) {
		t.Errorf("A %+v, B %+v", ua, ub)
	}
	if m := strings.Join(metricLines(t, b, "detour_endpoint_state{"), "\n"); !strings.Contains(m, `detour_endpoint_state{provider="p",state="cooling",target="a"} 1`) {
		t.Errorf("B's /metrics:\n%s", m)
	}
}
