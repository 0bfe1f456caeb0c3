package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 53: a client whose prompt passes 200,000 input tokens pays the
// vendor's long-context rates for the WHOLE request, but before round 53
// Detour priced every token at the target's one `price`, so the key's
// budget was charged about half of what the operator's account is billed.
// A target's price now names the tier (price.long_context), a fast mode
// (price.fast), and compaction's iterations are summed; each test failed
// before.
//
// Anthropic (https://platform.claude.com/docs/en/about-claude/pricing,
// "Long context pricing"): with the 1M window (beta header
// context-1m-2025-08-07, which the Messages door forwards as the client
// wrote it: internal/provider/anthropic/native.go `forwarded`), a request
// over 200K input tokens is billed $6 input / $22.50 output per MTok on
// Sonnet 4 / 4.5 instead of $3 / $15.
// Google (https://ai.google.dev/gemini-api/docs/pricing, gemini-2.5-pro:
// "$1.25, prompts <= 200k tokens; $2.50, prompts > 200k"; output $10 / $15;
// LiteLLM's model_prices_and_context_window.json carries the same as
// input_cost_per_token_above_200k_tokens, BerriAI/litellm commit ac4f32f).
// No header is needed there: any client of a route to Gemini 2.5 Pro
// chooses its tier by the size of its prompt.
//
// docs/config.md's budget row names per-use fees and service_tier as not
// priced; before round 53 the long-context tier was not named, and `price`
// had no key for it.

const h53LongCfg = `
client_keys:
  - {key: key-coder, name: coder, budget: {usd_per_day: 100}}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: sonnet, model: claude-sonnet-4-5, providers: [anthropic],
     price: {input: 3, output: 15, long_context: {above: 200000, input: 6, output: 22.5}}}
  - {name: pro, model: gemini-2.5-pro, providers: [gemini],
     price: {input: 1.25, output: 10, long_context: {above: 200000, input: 2.5, output: 15}}}
`

// Anthropic's documented Messages answer shape (as cachewrite_test.go's
// claudeAnswerWith), with a long prompt's usage.
const h53ClaudeLongUsage = `{"input_tokens":500000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1000}`

// Gemini's generateContent answer shape (as reasoning_usage_test.go's
// geminiThinking), with a long prompt's usage.
const h53GeminiLong = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Done."}]},"finishReason":"STOP","index":0}],` +
	`"usageMetadata":{"promptTokenCount":300000,"candidatesTokenCount":1000,"totalTokenCount":301000},"modelVersion":"gemini-2.5-pro"}`

const (
	// What each vendor bills for those answers (long-context rates on every token).
	h53ClaudeBill = (500000*6 + 1000*22.5) / 1e6 // $3.0225
	h53GeminiBill = (300000*2.5 + 1000*15) / 1e6 // $0.765
)

// TestH53LongContextPromptPaysTheStandardRate: before round 53 the
// Messages door forwarded the client's anthropic-beta: context-1m-2025-08-07
// and the key was charged $1.515 for a request Anthropic bills $3.0225; a
// chat request to Gemini 2.5 Pro with a 300K-token prompt was charged
// $0.385 for one Google bills $0.765. The targets' prices now name the
// long-context tier (price.long_context).
func TestH53LongContextPromptPaysTheStandardRate(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"anthropic": script(claudeAnswerWith(h53ClaudeLongUsage)),
		"gemini":    script(upstreamtest.Step{Body: h53GeminiLong}),
	})
	g := startClock(t, h53LongCfg, fs, testutil.NewClock(time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)))
	key := []string{"Authorization", "Bearer key-coder"}

	// 1. Messages door, Claude with the 1M window asked for by the client.
	msg := `{"model":"sonnet","max_tokens":1024,"messages":[{"role":"user","content":"Summarise this repository."}]}`
	g.raw(t, "POST", "/v1/messages", msg, append(key, "anthropic-version", "2023-06-01", "anthropic-beta", "context-1m-2025-08-07")...).wantStatus(t, 200)
	forwarded := false
	for _, r := range fs["anthropic"].Requests() {
		if strings.Contains(strings.Join(r.Header.Values("Anthropic-Beta"), ","), "context-1m") {
			forwarded = true
		}
	}
	d := g.recs.wait(t, 1)
	cost := -1.0
	if d.CostUSD.Known() {
		cost = float64(*d.CostUSD)
	}
	t.Logf("claude: beta forwarded=%v, recorded cost %s, Anthropic bills $%.4f", forwarded, usd(d.CostUSD), h53ClaudeBill)
	if forwarded && cost < h53ClaudeBill-1e-9 {
		t.Errorf("Messages door forwarded anthropic-beta context-1m and the key paid %s for 500,000 input + 1,000 output tokens; Anthropic bills the whole request at long-context rates: $%.4f", usd(d.CostUSD), h53ClaudeBill)
	}
	if len(d.Attempts) != 1 || d.Attempts[0].PriceTier != "long_context" {
		t.Errorf("the record does not say which price priced it (operator review 53): %+v", d.Attempts)
	}

	// 2. Chat door, Gemini 2.5 Pro, a prompt past 200K tokens: no header needed.
	g.post(t, "pro", "", key...).wantStatus(t, 200)
	d = g.recs.wait(t, 2)
	cost = -1.0
	if d.CostUSD.Known() {
		cost = float64(*d.CostUSD)
	}
	t.Logf("gemini: recorded cost %s, Google bills $%.4f", usd(d.CostUSD), h53GeminiBill)
	if cost < h53GeminiBill-1e-9 {
		t.Errorf("a 300,000-token prompt to gemini-2.5-pro paid %s; Google bills prompts over 200k at $2.50/$15: $%.4f", usd(d.CostUSD), h53GeminiBill)
	}
	if got := clientCost(t, g, "pro", "gemini") + clientCost(t, g, "sonnet", "anthropic"); got < h53ClaudeBill+h53GeminiBill-1e-9 {
		t.Errorf("detour_cost_usd_total for coder: $%.4f, the accounts were billed $%.4f", got, h53ClaudeBill+h53GeminiBill)
	}
}

// Hostile 53, finding 2: Anthropic's fast mode. A Messages-door client
// sends "speed":"fast" with anthropic-beta: fast-mode-2026-02-01; an
// Anthropic target gets the body as sent (only "model" replaced) and the
// header forwarded, and Anthropic bills Opus 4.6 fast mode at $30 / $150
// per MTok, six times its $5 / $25 (https://platform.claude.com/docs/en/build-with-claude/fast-mode;
// Claude Code's docs, code.claude.com/docs/en/fast-mode: "$30/$150 MTok on
// Opus 4.7 and Opus 4.6"). The answer says so itself: usage.speed is
// "fast" (anthropic-sdk-python src/anthropic/types/beta/beta_usage.py:
// `speed: Optional[Literal["standard", "fast"]]` "The inference speed mode
// used for this request"). docs/doors.md lists `speed` as dropped only for
// targets of other vendors; docs/config.md's budget row does not name it
// among the fees not priced.

const h53FastCfg = `
client_keys:
  - {key: key-coder, name: coder, budget: {usd_per_day: 100}}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: opus, model: claude-opus-4-6, providers: [anthropic], price: {input: 5, output: 25, fast: {input: 30, output: 150}}}
`

const (
	h53FastUsage = `{"input_tokens":10000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":2000,"service_tier":"standard","speed":"fast"}`
	h53FastBill  = (10000*30 + 2000*150) / 1e6 // $0.60; Detour's price gives $0.10
)

// TestH53FastModePaysTheStandardRate: Failed before round 53: the key was charged $0.10
// for a fast-mode answer Anthropic bills $0.60. Passes if the recorded cost
// is at least the bill, or if "speed":"fast" never reaches the upstream for
// a budgeted key.
func TestH53FastModePaysTheStandardRate(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswerWith(h53FastUsage))})
	g := startClock(t, h53FastCfg, fs, testutil.NewClock(time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)))
	msg := `{"model":"opus","max_tokens":4096,"speed":"fast","messages":[{"role":"user","content":"Refactor this function."}]}`
	g.raw(t, "POST", "/v1/messages", msg, "Authorization", "Bearer key-coder",
		"anthropic-version", "2023-06-01", "anthropic-beta", "fast-mode-2026-02-01").wantStatus(t, 200)
	fast := false
	for _, r := range fs["anthropic"].Requests() {
		if strings.Contains(string(r.Body), `"speed":"fast"`) && strings.Contains(strings.Join(r.Header.Values("Anthropic-Beta"), ","), "fast-mode") {
			fast = true
		}
	}
	d := g.recs.wait(t, 1)
	t.Logf("speed fast and beta reached Anthropic: %v; recorded cost %s; Anthropic bills $%.2f", fast, usd(d.CostUSD), h53FastBill)
	if fast && (!d.CostUSD.Known() || float64(*d.CostUSD) < h53FastBill-1e-9) {
		t.Errorf("a fast-mode Opus 4.6 answer (usage.speed \"fast\") was charged %s to the key; Anthropic bills $%.2f", usd(d.CostUSD), h53FastBill)
	}
	if len(d.Attempts) != 1 || d.Attempts[0].PriceTier != "fast" {
		t.Errorf("the record does not say the fast price priced it (operator review 53): %+v", d.Attempts)
	}
}

// Hostile 53, finding 3: server-side compaction. A Messages-door client
// sends context_management {"edits":[{"type":"compact_20260112"}]} with
// anthropic-beta: compact-2026-01-12 (both reach an Anthropic target as
// written). Anthropic's compaction docs
// (https://platform.claude.com/docs/en/build-with-claude/compaction,
// "Understanding usage"): "Compaction requires an additional sampling
// step, which contributes to rate limits and billing … The top-level
// input_tokens and output_tokens do not include compaction iteration
// usage … To calculate total tokens consumed and billed for a request, sum
// across all entries in the usage.iterations array." The answer below is
// that page's usage example, and its content the page's compaction block
// followed by the turn's text.

const h53CompactUsage = `{"input_tokens":23000,"output_tokens":1000,"iterations":[` +
	`{"type":"compaction","input_tokens":180000,"output_tokens":3500},{"type":"message","input_tokens":23000,"output_tokens":1000}]}`

const h53CompactBill = ((180000+23000)*5 + (3500+1000)*25) / 1e6 // $1.1275; the top level alone gives $0.14

// TestH53CompactionIterationIsNotPaid: Failed before round 53: the key was charged $0.14
// for an answer Anthropic bills $1.1275 (the compaction step read 180,000
// tokens). A client that resends its whole history each turn (never the
// compaction block) has that step run, and go unpaid, on every request.
func TestH53CompactionIterationIsNotPaid(t *testing.T) {
	answer := upstreamtest.Step{Body: `{"id":"msg_01","type":"message","role":"assistant","model":"claude-opus-4-6",` +
		`"content":[{"type":"compaction","content":"Summary of the conversation: the user is building a Python web scraper."},` +
		`{"type":"text","text":"Based on our conversation so far, the next step is pagination."}],` +
		`"stop_reason":"end_turn","stop_sequence":null,"usage":` + h53CompactUsage + `}`}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(answer)})
	g := startClock(t, h53FastCfg, fs, testutil.NewClock(time.Date(2026, 12, 6, 10, 0, 0, 0, time.UTC)))
	msg := `{"model":"opus","max_tokens":4096,"messages":[{"role":"user","content":"Help me build a Python web scraper"}],` +
		`"context_management":{"edits":[{"type":"compact_20260112","trigger":{"type":"input_tokens","value":50000}}]}}`
	g.raw(t, "POST", "/v1/messages", msg, "Authorization", "Bearer key-coder",
		"anthropic-version", "2023-06-01", "anthropic-beta", "compact-2026-01-12").wantStatus(t, 200)
	sent := false
	for _, r := range fs["anthropic"].Requests() {
		if strings.Contains(string(r.Body), "compact_20260112") {
			sent = true
		}
	}
	d := g.recs.wait(t, 1)
	t.Logf("compaction asked of Anthropic: %v; recorded usage %+v cost %s; Anthropic bills $%.4f", sent, d.Usage, usd(d.CostUSD), h53CompactBill)
	if sent && (!d.CostUSD.Known() || float64(*d.CostUSD) < h53CompactBill-1e-9) {
		t.Errorf("an answer whose usage.iterations holds a 180,000-token compaction step was charged %s; Anthropic bills the sum of its iterations, $%.4f", usd(d.CostUSD), h53CompactBill)
	}
}
