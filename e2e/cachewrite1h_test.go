package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Anthropic bills writes to its 1-hour prompt cache at twice the input
// price, where the 5-minute cache's writes are 1.25 times it
// (https://platform.claude.com/docs/en/about-claude/pricing), and says how
// many of a call's writes went to each in usage.cache_creation
// (https://platform.claude.com/docs/en/build-with-claude/prompt-caching).
// Claude Code asks for the 1-hour cache on some plans, so a gateway that
// priced every write at one rate undercounted its spend by a third.

// hourCfg prices Claude Opus 4.5 as Anthropic does: $5 input, $6.25
// 5-minute writes, $10 1-hour writes, $0.50 cache hits, $25 output per
// million. Target "claude" names no cache_write_1h: its 1-hour writes cost
// twice its input price, Anthropic's (round 51; before, its cache_write, and
// a client marking every block "1h" spent a budget at under its cost).
const hourCfg = `
client_keys: [key-admin]
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: hour, model: claude-opus-4-5, providers: [anthropic],
     price: {input: 5, output: 25, cached_input: 0.50, cache_write: 6.25, cache_write_1h: 10}}
  - {name: claude, model: claude-opus-4-5, providers: [anthropic],
     price: {input: 5, output: 25, cached_input: 0.50, cache_write: 6.25}}
`

// hourUsage splits 1,000 written tokens as LangChain's documentation of
// Anthropic's TTL counts does (750 to the 1-hour cache, 250 to the
// 5-minute one), the rest of the call as the prompt caching example's.
const hourUsage = `{"input_tokens":21,"cache_creation_input_tokens":1000,"cache_read_input_tokens":0,` +
	`"cache_creation":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":750},"output_tokens":393}`

const (
	hourCost = (21*5 + 250*6.25 + 750*10 + 393*25) / 1e6  // $0.01904
	flatCost = (21*5 + 250*6.25 + 750*2*5 + 393*25) / 1e6 // 1-hour writes at twice the input price, no cache_write_1h named
)

// Every way a Claude answer reaches a client — translated whole or
// streamed at /v1/chat/completions, passed through whole or streamed at
// /v1/messages — records the 1-hour writes apart and prices them at
// cache_write_1h; a target without that key prices them at twice its input
// price (or cache_write, if higher).
func TestHourCacheWriteCostsItsPremium(t *testing.T) {
	whole, streamed := claudeAnswerWith(hourUsage), claudeStreamWith(hourUsage)
	steps := []upstreamtest.Step{whole, streamed, whole, streamed, whole}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(steps...)})
	g := startClock(t, hourCfg, fs, testutil.NewClock(time.Date(2026, 12, 2, 10, 0, 0, 0, time.UTC)))
	admin := []string{"Authorization", "Bearer key-admin"}
	messages := `{"model":"hour","max_tokens":1024,"messages":[{"role":"user","content":"Analyze the major themes in 'Pride and Prejudice'."}]}`

	r := g.post(t, "hour", "", admin...)
	r.wantStatus(t, 200)
	if !strings.Contains(string(r.Body), `"prompt_tokens_details":{"cached_tokens":0,"cache_write_tokens":1000,"cache_creation_token_details":{"ephemeral_5m_input_tokens":250,"ephemeral_1h_input_tokens":750}}`) {
		t.Errorf("client's usage: %s", r.Body)
	}
	r = g.post(t, "hour", `,"stream":true,"stream_options":{"include_usage":true}`, admin...)
	r.wantStatus(t, 200)
	if !strings.Contains(string(r.Body), `"ephemeral_1h_input_tokens":750`) {
		t.Errorf("client's stream: %s", r.Body)
	}
	g.raw(t, "POST", "/v1/messages", messages, append(admin, "anthropic-version", "2023-06-01")...).wantStatus(t, 200)
	stream := strings.Replace(messages, `"max_tokens"`, `"stream":true,"max_tokens"`, 1)
	r = g.raw(t, "POST", "/v1/messages", stream, append(admin, "anthropic-version", "2023-06-01")...)
	r.wantStatus(t, 200)
	if !strings.Contains(string(r.Body), `"ephemeral_1h_input_tokens":750`) {
		t.Errorf("Messages client's stream lost Anthropic's own usage: %s", r.Body)
	}
	for n := 1; n <= 4; n++ {
		d := wantCacheCost(t, g, n, 1021, 1000, hourCost)
		if a := d.Attempts[len(d.Attempts)-1]; a.Usage.CacheWrite1hTokens != 750 || d.Usage.CacheWrite1hTokens != 750 {
			t.Errorf("record %d: 1-hour writes %d (request %d), want 750", n, a.Usage.CacheWrite1hTokens, d.Usage.CacheWrite1hTokens)
		}
	}
	g.post(t, "claude", "", admin...).wantStatus(t, 200)
	wantCacheCost(t, g, 5, 1021, 1000, flatCost)
}
