package e2e

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Build 66i: Anthropic bills each web search beside the tokens, "$10 per
// 1,000 searches" (https://platform.claude.com/docs/en/about-claude/pricing),
// and says how many in usage.server_tool_use.web_search_requests. Claude
// Code's WebSearch reaches Claude as that server tool through the Messages
// door, passed as written; before, a budgeted key spent it unseen.

// feeCfg prices Claude Sonnet 4.5 as Anthropic does ($3/$15 per million)
// with its web search; coder's day ($0.045) is more than the docs' search
// answer costs in tokens ($0.039696) and less than it costs with its
// search ($0.049696).
const feeCfg = `
client_keys:
  - {name: coder, key: key-coder, budget: {usd_per_day: 0.045}}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic], price: {input: 3, output: 15, web_search: 10}}
`

// docsSearchStream is the docs' streamed web search answer
// (internal/provider/anthropic/testdata/stream/web_search.sse: its source
// and elisions are said at its head), event by event: 2,679 input tokens at
// message_start, 10,682 input, 510 output and one search at message_delta.
func docsSearchStream(t *testing.T) upstreamtest.Step {
	t.Helper()
	b, err := os.ReadFile("../internal/provider/anthropic/testdata/stream/web_search.sse")
	if err != nil {
		t.Fatal(err)
	}
	var evs []string
	for _, block := range strings.Split(string(b), "\n\n") {
		var lines []string
		for _, l := range strings.Split(strings.TrimSpace(block), "\n") {
			if strings.HasPrefix(l, "event:") || strings.HasPrefix(l, "data:") {
				lines = append(lines, l)
			}
		}
		if len(lines) > 0 {
			evs = append(evs, strings.Join(lines, "\n"))
		}
	}
	return upstreamtest.Step{Events: evs}
}

// The docs' web search usage, as the pricing page publishes it.
const docsSearchUsage = `{"input_tokens":105,"output_tokens":6039,"cache_read_input_tokens":7123,"cache_creation_input_tokens":7345,"server_tool_use":{"web_search_requests":1}}`

// A streamed web search at the Messages door: the record counts the search
// and its cost, the key's budget counts it, and the key's next request is
// refused; the same stream's tokens alone would have left the key inside
// its day.
func TestWebSearchFeeSpendsTheBudgetBuild66i(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(docsSearchStream(t), claudeAnswerWith(docsSearchUsage))})
	g := startClock(t, feeCfg, fs, testutil.NewClock(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)))
	key := []string{"Authorization", "Bearer key-coder", "anthropic-version", "2023-06-01"}
	// Claude Code's WebSearch tool, as it sends it.
	body := `{"model":"claude","max_tokens":1024,"stream":true,"messages":[{"role":"user","content":"What's the weather like in New York City today?"}],` +
		`"tools":[{"type":"web_search_20250305","name":"web_search","max_uses":8}]}`
	r := g.raw(t, "POST", "/v1/messages", body, key...)
	r.wantStatus(t, 200)
	if !strings.Contains(string(r.Body), `"server_tool_use":{"web_search_requests":1}`) {
		t.Errorf("the client's stream lost Anthropic's own usage: %s", r.Body)
	}
	const want = (10682*3+510*15)/1e6 + 0.01
	d := g.recs.wait(t, 1)
	a := d.Attempts[len(d.Attempts)-1]
	if a.Usage == nil || a.Usage.WebSearchRequests != 1 || a.Usage.PromptTokens != 10682 || !a.CostUSD.Known() || !near(float64(*a.CostUSD), want) {
		t.Errorf("attempt usage %+v cost %s, want 1 search and $%v", a.Usage, usd(a.CostUSD), want)
	}
	if d.Usage == nil || d.Usage.WebSearchRequests != 1 || !d.CostUSD.Known() || !near(float64(*d.CostUSD), want) {
		t.Errorf("request usage %+v cost %s, want 1 search and $%v", d.Usage, usd(d.CostUSD), want)
	}
	if got := clientCost(t, g, "claude", "anthropic"); !near(got, want) {
		t.Errorf("coder's spend $%v, want $%v", got, want)
	}
	r = g.raw(t, "POST", "/v1/messages", strings.Replace(body, `"stream":true,`, ``, 1), key...)
	if r.Status != 429 || !strings.Contains(string(r.Body), "budget") {
		t.Errorf("after the search spent its day, coder's next request: %d %s", r.Status, r.Body)
	}
}

// Whole, and at a target whose price names no web_search: the search is
// counted in the record and costs nothing (unpriced, never guessed).
func TestWebSearchFeeWholeAndUnpricedBuild66i(t *testing.T) {
	const cfg = `
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-sonnet-4-5, providers: [anthropic], price: {input: 3, output: 15, web_search: 10}}
  - {name: bare, model: claude-sonnet-4-5, providers: [anthropic], price: {input: 3, output: 15}}
`
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswerWith(docsSearchUsage), claudeAnswerWith(docsSearchUsage))})
	g := startClock(t, cfg, fs, testutil.NewClock(time.Date(2026, 12, 7, 10, 0, 0, 0, time.UTC)))
	tokens := (105*3 + 7123*3 + 7345*3 + 6039*15) / 1e6 // cache prices default to input
	for n, c := range []struct {
		model string
		want  float64
	}{{"claude", tokens + 0.01}, {"bare", tokens}} {
		body := `{"model":"` + c.model + `","max_tokens":1024,"messages":[{"role":"user","content":"hi"}],"tools":[{"type":"web_search_20250305","name":"web_search"}]}`
		g.raw(t, "POST", "/v1/messages", body, "anthropic-version", "2023-06-01").wantStatus(t, 200)
		d := g.recs.wait(t, n+1)
		if d.Usage == nil || d.Usage.WebSearchRequests != 1 || !d.CostUSD.Known() || !near(float64(*d.CostUSD), c.want) {
			t.Errorf("%s: usage %+v cost %s, want 1 search and $%v", c.model, d.Usage, usd(d.CostUSD), c.want)
		}
	}
}
