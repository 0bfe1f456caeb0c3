package e2e

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Input written to the prompt cache is billed above plain input (docs/config.md,
// "Usage and cost"): Claude Code through Detour writes its cache on nearly every
// turn, and a cost that priced the writes as plain input let a client's budget
// run a quarter over.

// cacheCfg prices Claude Opus 4.5 as Anthropic does
// (https://platform.claude.com/docs/en/about-claude/pricing): $5 input,
// $6.25 5-minute cache writes, $0.50 cache hits, $25 output per million.
// coder's day is $1: the first answer below costs more than that with the
// premium, less without it.
const cacheCfg = `
client_keys:
  - {name: coder, key: key-coder, budget: {usd_per_day: 1}}
  - key-admin
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: relay, dialect: openai, base_url: "{relay}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-opus-4-5, providers: [anthropic],
     price: {input: 5, output: 25, cached_input: 0.50, cache_write: 6.25}}
  - {name: relayed, model: anthropic/claude-opus-4.5, providers: [relay],
     price: {input: 5, output: 25, cached_input: 0.50, cache_write: 6.25}}
`

// docUsage is the first call of Anthropic's prompt caching example
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching):
// the book written to the cache.
const docUsage = `{"cache_creation_input_tokens":188086,"cache_read_input_tokens":0,"input_tokens":21,"output_tokens":393}`

// docCost is docUsage at cacheCfg's price; priced as plain input, the
// written tokens made it $0.95036.
const docCost = (21*5 + 188086*6.25 + 393*25) / 1e6 // $1.1854675

func claudeAnswer() upstreamtest.Step { return claudeAnswerWith(docUsage) }

// claudeAnswerWith is Anthropic's answer with usage u.
func claudeAnswerWith(u string) upstreamtest.Step {
	return upstreamtest.Step{Body: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-4-5",` +
		`"content":[{"type":"text","text":"Pride"}],"stop_reason":"end_turn","stop_sequence":null,"usage":` + u + `}`}
}

// claudeStream reports docUsage as Anthropic's streams do: the input counts
// in message_start, the final output count in message_delta.
func claudeStream() upstreamtest.Step { return claudeStreamWith(docUsage) }

// claudeStreamWith streams usage u so: u's output_tokens is 393.
func claudeStreamWith(u string) upstreamtest.Step {
	start := strings.Replace(u, `"output_tokens":393`, `"output_tokens":1`, 1)
	return upstreamtest.Step{Events: []string{
		"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-opus-4-5","stop_reason":null,"stop_sequence":null,"usage":` + start + `}}`,
		"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Pride"}}`,
		"event: content_block_stop\ndata: " + `{"type":"content_block_stop","index":0}`,
		"event: message_delta\ndata: " + `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":393}}`,
		"event: message_stop\ndata: " + `{"type":"message_stop"}`,
	}}
}

// wantCacheCost checks that the n-th record paid for docUsage's cache write.
func wantCacheCost(t *testing.T, g *gateway, n, prompt, written int, want float64) *decision.Decision {
	t.Helper()
	d := g.recs.wait(t, n)
	a := d.Attempts[len(d.Attempts)-1]
	if a.Usage == nil || a.Usage.PromptTokens != prompt || a.Usage.CacheWriteTokens != written || a.Usage.CachedTokens != 0 ||
		!a.CostUSD.Known() || !near(float64(*a.CostUSD), want) {
		t.Errorf("record %d: attempt usage %+v cost %s, want %d written and $%v", n, a.Usage, usd(a.CostUSD), written, want)
	}
	if d.Usage == nil || d.Usage.CacheWriteTokens != written || !d.CostUSD.Known() || !near(float64(*d.CostUSD), want) {
		t.Errorf("record %d: request usage %+v cost %s", n, d.Usage, usd(d.CostUSD))
	}
	return d
}

// usd shows a recorded cost.
func usd(c *decision.USD) string {
	if !c.Known() {
		return "unknown"
	}
	return "$" + strconv.FormatFloat(float64(*c), 'g', -1, 64)
}

// clientCost is coder's detour_cost_usd_total at target.
func clientCost(t *testing.T, g *gateway, target, provider string) float64 {
	t.Helper()
	s := metricValue(t, g, `detour_cost_usd_total{client="coder",provider="`+provider+`",route="`+target+`",target="`+target+`"}`)
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatalf("coder's cost metric %q: %v", s, err)
	}
	return v
}

func startCache(t *testing.T, fs map[string]*upstreamtest.Server) *gateway {
	return startClock(t, cacheCfg, fs, testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
}

// A Claude answer that wrote the cache costs the write's premium, in the
// record and in the client's spend: coder's $1 day is spent by the one
// answer, and its next request is refused.
func TestCacheWriteCostsItsPremium(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswer()), "relay": likeOpenAI("x", 0, "x")})
	g := startCache(t, fs)
	r := g.post(t, "claude", "", "Authorization", "Bearer key-coder")
	r.wantStatus(t, 200)
	// The client reads the write as OpenRouter reports it.
	if !strings.Contains(string(r.Body), `"prompt_tokens":188107,"completion_tokens":393,"total_tokens":188500,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":188086}`) {
		t.Errorf("client's usage: %s", r.Body)
	}
	wantCacheCost(t, g, 1, 188107, 188086, docCost)
	if got := clientCost(t, g, "claude", "anthropic"); !near(got, docCost) {
		t.Errorf("coder's spend $%v, want $%v", got, docCost)
	}
	// The token metric counts the write apart from plain input, as the cost does.
	for kind, want := range map[string]string{"input": "21", "cache_write_input": "188086", "output": "393"} {
		series := `detour_tokens_total{client="coder",kind="` + kind + `",provider="anthropic",route="claude",target="claude"}`
		if got := metricValue(t, g, series); got != want {
			t.Errorf("%s = %q, want %s", series, got, want)
		}
	}
	r = g.post(t, "claude", "", "Authorization", "Bearer key-coder")
	if r.Status != 429 || !strings.Contains(string(r.Body), "client_budget_exceeded") {
		t.Errorf("after $%.2f of a $1 day: %d %s", docCost, r.Status, r.Body)
	}

	// At /v1/messages the client gets Anthropic's usage as Anthropic sent
	// it, and the record the same cost.
	r = g.raw(t, "POST", "/v1/messages", `{"model":"claude","max_tokens":1024,"messages":[{"role":"user","content":"Analyze the major themes in 'Pride and Prejudice'."}]}`,
		"Authorization", "Bearer key-admin", "anthropic-version", "2023-06-01")
	r.wantStatus(t, 200)
	if !strings.Contains(string(r.Body), `"usage":`+docUsage) {
		t.Errorf("Messages client's usage: %s", r.Body)
	}
	wantCacheCost(t, g, 2, 188107, 188086, docCost) // the refused request called no upstream: no record
}

// A streamed Claude answer reports the write in message_start: the same
// premium is paid.
func TestStreamedCacheWriteCostsItsPremium(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeStream()), "relay": likeOpenAI("x", 0, "x")})
	g := startCache(t, fs)
	r := g.post(t, "claude", `,"stream":true,"stream_options":{"include_usage":true}`, "Authorization", "Bearer key-coder")
	r.wantStatus(t, 200)
	if !strings.Contains(string(r.Body), `"cache_write_tokens":188086`) || !strings.Contains(string(r.Body), "Pride") {
		t.Errorf("client's stream: %s", r.Body)
	}
	wantCacheCost(t, g, 1, 188107, 188086, docCost)
	if got := clientCost(t, g, "claude", "anthropic"); !near(got, docCost) {
		t.Errorf("coder's spend $%v, want $%v", got, docCost)
	}
	g.post(t, "claude", `,"stream":true`, "Authorization", "Bearer key-coder").wantStatus(t, 429)
}

// OpenAI-dialect relays of Claude report the write in OpenAI's usage:
// OpenRouter as prompt_tokens_details.cache_write_tokens
// (https://openrouter.ai/docs/use-cases/usage-accounting, whose example
// this is), LiteLLM as a top-level cache_creation_input_tokens
// (https://litellm.vercel.app/docs/completion/prompt_caching), its
// prompt_tokens counting the written tokens (its Anthropic transformation
// adds them). Both are priced at cache_write, and the client gets the
// relay's usage as sent.
func TestRelayedCacheWriteCostsItsPremium(t *testing.T) {
	const openRouter = `{"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":0},"cost":0.95,"cost_details":{"upstream_inference_cost":19},` +
		`"prompt_tokens":194,"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":100,"audio_tokens":0},"total_tokens":196}`
	const liteLLM = `{"prompt_tokens":188107,"completion_tokens":393,"total_tokens":188500,"prompt_tokens_details":{"cached_tokens":0},` +
		`"completion_tokens_details":{"reasoning_tokens":0},"cache_creation_input_tokens":188086}`
	answer := func(usage string) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"id":"gen-1","object":"chat.completion","created":1,"model":"anthropic/claude-opus-4.5",` +
			`"choices":[{"index":0,"message":{"role":"assistant","content":"Pride"},"finish_reason":"stop"}],"usage":` + usage + `}`}
	}
	evs := upstreamtest.ChatStream("anthropic/claude-opus-4.5", "Pride")
	evs[len(evs)-2] = `{"id":"gen-1","object":"chat.completion.chunk","created":1,"model":"anthropic/claude-opus-4.5","choices":[],"usage":` + openRouter + `}`
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswer()),
		"relay": script(answer(openRouter), upstreamtest.Step{Events: evs}, answer(liteLLM))})
	g := startCache(t, fs)
	const routerCost = (94*5 + 100*6.25 + 2*25) / 1e6

	r := g.post(t, "relayed", "", "Authorization", "Bearer key-admin")
	if r.Status != 200 || !strings.Contains(string(r.Body), `"usage":`+openRouter) {
		t.Errorf("client's answer: %d %s", r.Status, r.Body)
	}
	wantCacheCost(t, g, 1, 194, 100, routerCost)
	g.post(t, "relayed", `,"stream":true`, "Authorization", "Bearer key-admin").wantStatus(t, 200)
	wantCacheCost(t, g, 2, 194, 100, routerCost)
	r = g.post(t, "relayed", "", "Authorization", "Bearer key-admin")
	if r.Status != 200 || !strings.Contains(string(r.Body), `"usage":`+liteLLM) {
		t.Errorf("client's answer: %d %s", r.Status, r.Body)
	}
	wantCacheCost(t, g, 3, 188107, 188086, docCost)
}
