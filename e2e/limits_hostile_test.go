package e2e

import (
	"bufio"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Client limits against what an upstream may report (docs/config.md,
// client_keys): usage is the upstream's word, and no number in it may turn
// a key's spend into headroom.

const hugeUsageCfg = `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 1}, rate: {tokens_per_minute: 100000}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`

// An answer whose usage is 18 digits of tokens (at $10 per million, 1e13
// USD: more micro-dollars than an int64 holds) wrapped the key's spend to a
// negative count, and the key was admitted for the rest of the month; then
// (rounds 30 to 61) it spent the key's day at once, a broken server's
// number refusing the key. Since review 62b a count past what the answer
// could have used is no count: Detour's estimate of the answer stands in,
// positive and small, the record says capped, and the key goes on.
func TestHugeReportedUsageIsNoCount(t *testing.T) {
	huge := upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":5,"completion_tokens":999999999999999999,"total_tokens":5}}`}
	for _, store := range []string{"memory", "redis"} {
		t.Run(store, func(t *testing.T) {
			cfg := hugeUsageCfg
			if store == "redis" {
				cfg += "state: {store: redis, url: \"" + redistest.Start(t).URL() + "\"}\n"
			}
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(huge, ok("gpt-4o", "y"))})
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			g := startClock(t, cfg, fs, clk)
			g.post(t, "deep", "", "Authorization", "Bearer key-team-b").wantStatus(t, 200)
			d := g.recs.wait(t, 1)
			if d.Usage == nil || !d.Usage.Capped || d.Usage.CompletionTokens <= 0 || d.Usage.CompletionTokens > 1000 ||
				d.CostUSD == nil || *d.CostUSD <= 0 || *d.CostUSD > 0.01 {
				t.Errorf("record: usage %+v cost %v, want a small positive estimate, capped", d.Usage, d.CostUSD)
			}
			clk.Set(time.Date(2026, 12, 1, 10, 0, 5, 0, time.UTC)) // past a replica's Redis retry interval
			g.post(t, "deep", "", "Authorization", "Bearer key-team-b").wantStatus(t, 200)
			if n := fs["openai"].Calls(); n != 2 {
				t.Errorf("upstream calls %d, want 2", n)
			}
		})
	}
}

// A negative input count (or one that wraps when Anthropic's three input
// counts are added) took back what the output cost: every request was
// admitted and `detour usage` went negative. A count below zero is no
// count (review 69j: Detour's estimate of the prompt stands in, the record
// says capped), so the output spends the budget and nothing is taken back.
func TestNegativeReportedUsageTakesNothingBack(t *testing.T) {
	// 200,000 output tokens, an answer's unseen reasoning (a million, on
	// an answer of one letter, is past what it could have used: no count).
	neg := upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"gpt-4o",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":-100000000,"completion_tokens":200000,"total_tokens":200000}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(neg, neg, neg)})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, strings.Replace(hugeUsageCfg, "rate: {tokens_per_minute: 100000}", "rate: {tokens_per_minute: 100000000}", 1), fs, clk)
	g.post(t, "deep", "", "Authorization", "Bearer key-team-b").wantStatus(t, 200) // $2 of output against $1 a day
	d := g.recs.wait(t, 1)
	if d.CostUSD == nil || *d.CostUSD < 2 || d.Usage == nil || d.Usage.PromptTokens <= 0 || d.Usage.PromptTokens > 100 ||
		!d.Usage.Capped || d.Usage.CachedTokens != 0 {
		t.Errorf("record: cost %v usage %+v, want the output's $2 and the prompt's estimate, capped", d.CostUSD, d.Usage)
	}
	clk.Set(time.Date(2026, 12, 1, 10, 0, 5, 0, time.UTC))
	g.post(t, "deep", "", "Authorization", "Bearer key-team-b").wantStatus(t, 429)
	if n := fs["openai"].Calls(); n != 1 {
		t.Errorf("upstream calls %d, want 1", n)
	}
}

// Gemini reports no token counts for embeddings: at a priced target the
// record must say its cost is unknown (docs/config.md: "never a silent
// zero"), not $0 from the zeros Detour writes in the client's usage.
func TestGeminiEmbeddingsCostIsUnknown(t *testing.T) {
	cfg := `
client_keys:
  - {name: team-e, key: key-team-e, budget: {usd_per_day: 1}}
providers:
  - {name: gemini, dialect: gemini, base_url: "{gemini}", api_key: ` + secret + `}
targets:
  - {name: gem, model: gemini-embedding-001, providers: [gemini], price: {input: 0.15, output: 0}}
routes:
  - {name: vectors, targets: [gem]}
`
	fs := fakes(t, map[string]upstreamtest.Script{
		"gemini": script(upstreamtest.Step{Body: `{"embeddings":[{"values":[1,2,3]}]}`}),
	})
	g := startClock(t, cfg, fs, testutil.NewClock(time.Now()))
	r := g.raw(t, "POST", "/v1/embeddings", `{"model":"vectors","input":"hello"}`, "Authorization", "Bearer key-team-e")
	r.wantStatus(t, 200)
	if !strings.Contains(string(r.Body), `"usage":{"prompt_tokens":0,"total_tokens":0}`) {
		t.Errorf("the client's usage changed: %s", r.Body)
	}
	d := g.recs.wait(t, 1)
	if !d.CostUnknown || d.CostUSD.Known() || len(d.Attempts) != 1 || !d.Attempts[0].CostUnknown || d.Attempts[0].Usage != nil {
		t.Errorf("record: cost %v unknown %v, attempt %+v", d.CostUSD, d.CostUnknown, d.Attempts)
	}
}

// A client that leaves a stream after its first content, before the
// upstream's usage count comes, must not spend nothing: the attempt ran
// and was billed. Its input, estimated from the request's size, counts
// against the key's budget (docs/config.md, client_keys), so a tiny
// budget refuses the next request.
func TestLeavingAStreamStillSpendsItsInput(t *testing.T) {
	evs := upstreamtest.ChatStream("gpt-4o", "hel", "lo")
	stall := upstreamtest.Step{Events: evs[:2], Stall: true} // role and first content; no usage yet
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(stall, ok("gpt-4o", "y"))})
	cfg := strings.Replace(hugeUsageCfg, "budget: {usd_per_day: 1}, rate: {tokens_per_minute: 100000}", "budget: {usd_per_day: 0.000001}", 1)
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, cfg, fs, clk)

	leaveStream(t, g, "/v1/chat/completions",
		`{"model":"deep","stream":true,"messages":[{"role":"user","content":"tell me a long story about budgets"}]}`, `"hel"`)
	r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b")
	if r.Status != 429 || !strings.Contains(r.errMessage(t), "usd_per_day") {
		t.Fatalf("after a left stream on a $0.000001 budget: %d %s, want 429 by usd_per_day", r.Status, r.Body)
	}
	if n := fs["openai"].Calls(); n != 1 {
		t.Errorf("upstream calls %d, want 1", n)
	}
}

// The same through /v1/responses to a responses: true target, with a body
// Detour's translation refuses (a hosted tool): it goes upstream as sent,
// and there is no translated body to size. Its input must still count.
func TestLeavingAPassthroughStreamStillSpendsItsInput(t *testing.T) {
	stall := upstreamtest.Step{Events: nativeEvents()[:4], Stall: true} // up to the first delta; no usage yet
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(stall, upstreamtest.Step{Body: nativeAnswer})})
	cfg := `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.000001}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, responses: true}
targets:
  - {name: gpt, model: gpt-5-mini, providers: [openai], price: {input: 2.50, output: 10.00}}
routes:
  - {name: agent, targets: [gpt]}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, cfg, fs, clk)
	body := strings.Replace(clientResponsesBody, `"stream":false`, `"stream":true`, 1)
	leaveStream(t, g, "/v1/responses", body, `"native "`)
	r := g.raw(t, "POST", "/v1/responses", clientResponsesBody, "Authorization", "Bearer key-team-b")
	if r.Status != 429 || !strings.Contains(string(r.Body), "usd_per_day") {
		t.Fatalf("after a left passthrough stream on a $0.000001 budget: %d %s, want 429 by usd_per_day", r.Status, r.Body)
	}
	if n := fs["openai"].Calls(); n != 1 {
		t.Errorf("upstream calls %d, want 1", n)
	}
}

// An upstream that resets the connection while Detour is still writing
// the request body never got the request: the attempt is not billable
// (docs/behaviour.md: billable is "the upstream may have run it"), and the
// estimate of its input counts nothing against the key's limits (a 16 MiB
// body is 4M tokens, four hundred times this key's minute).
func TestResetBeforeTheBodyIsSentIsNotBillable(t *testing.T) {
	addr := rawTCP(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for { // the request's head, never its body
			if l, err := br.ReadString('\n'); err != nil || l == "\r\n" {
				break
			}
		}
		time.Sleep(300 * time.Millisecond) // the body fills the socket buffers, then waits
		c.(*net.TCPConn).SetLinger(0)
		c.Close() // a reset, with most of the body unsent
	})
	cfg := `
max_body_bytes: 33554432
client_keys:
  - {name: team-r, key: key-team-r, rate: {tokens_per_minute: 10000}}
providers:
  - {name: p, dialect: openai, base_url: "http://` + addr + `", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [p], price: {input: 2.50, output: 10.00}}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, cfg, nil, clk)
	big := `{"model":"gpt","messages":[{"role":"user","content":"` + strings.Repeat("x", 16<<20) + `"}]}`
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", big, "Authorization", "Bearer key-team-r")
	if r.Status != http.StatusBadGateway {
		t.Fatalf("status %d %s, want 502", r.Status, r.Body)
	}
	d := g.recs.wait(t, 1)
	for i, a := range d.Attempts {
		if a.Billable || a.CostUnknown {
			t.Errorf("attempt %d (%s): billable %v cost_unknown %v, want neither: the upstream never had the body", i, a.Evidence, a.Billable, a.CostUnknown)
		}
	}
	if r := g.post(t, "gpt", "", "Authorization", "Bearer key-team-r"); r.Status == http.StatusTooManyRequests {
		t.Errorf("next request: 429 %s: an unsent body was counted against the key's tokens", r.Body)
	}
}

// leaveStream posts body to path as key-team-b, reads the stream until
// first (its first content) and leaves; the request's record must show a
// canceled, billable attempt of unknown cost.
func leaveStream(t *testing.T, g *gateway, path, body, first string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer key-team-b")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 4096)
	var got string
	for !strings.Contains(got, first) {
		n, err := resp.Body.Read(buf)
		got += string(buf[:n])
		if err != nil {
			t.Fatalf("stream ended before its first content: %v %s", err, got)
		}
	}
	resp.Body.Close() // the client leaves
	d := g.recs.wait(t, 1)
	if d.Outcome != "canceled" || len(d.Attempts) != 1 || !d.Attempts[0].Billable || !d.Attempts[0].CostUnknown {
		t.Fatalf("record: outcome %s attempts %+v", d.Outcome, d.Attempts)
	}
}
