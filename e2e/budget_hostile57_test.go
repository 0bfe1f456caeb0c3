package e2e

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Hostile 57: money and limits. Each test states what an upstream sends,
// and what the key's budget must then count.

// An Anthropic-dialect stream whose message_delta repeats the input count
// but leaves the cache counts out. Anthropic's MessageDeltaUsage makes each
// of input_tokens, cache_creation_input_tokens and cache_read_input_tokens
// nullable and cumulative, and its SDK's MessageStream updates each one only
// when the event carries it (anthropic-sdk-typescript src/lib/MessageStream.ts:
// `if (event.usage.cache_read_input_tokens != null) …`, one test per field;
// pi-mono's ai package does the same, "Preserves input_tokens from
// message_start when proxies omit it in message_delta"). Detour replaced
// all three when any of them is above 0, so the 188,086 tokens message_start
// said were written to the cache are recorded as 0 written, and the cost
// dropped from $1.185 to $0.01 before round 57: coder's $1 budget admitted
// the next request.
func TestH57MessageDeltaInputCountKeepsTheCacheWrite(t *testing.T) {
	step := claudeStream()
	for i, e := range step.Events {
		if strings.Contains(e, "message_delta") {
			step.Events[i] = strings.Replace(e, `"usage":{"output_tokens":393}`, `"usage":{"input_tokens":21,"output_tokens":393}`, 1)
		}
	}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(step), "relay": likeOpenAI("x", 0, "x")})
	g := startCache(t, fs)
	r := g.post(t, "claude", `,"stream":true,"stream_options":{"include_usage":true}`, "Authorization", "Bearer key-coder")
	r.wantStatus(t, 200)
	wantCacheCost(t, g, 1, 188107, 188086, docCost)
	if r := g.post(t, "claude", "", "Authorization", "Bearer key-coder"); r.Status != http.StatusTooManyRequests {
		t.Errorf("next request: %d, want 429: the $1.185 answer (its cache write) was counted without its write, on a $1 budget", r.Status)
	}
}

// A client leaves a Claude stream after its first words. Anthropic had
// counted the prompt in message_start: 21 tokens plus 188,086 read from
// the prompt cache (a cached book, Anthropic's prompt-caching example), at
// $0.50 per million instead of $5. Before round 57 Detour's estimate for the
// left stream took the larger of the upstream's prompt count and its own,
// and priced it all at the plain input price; the key's budget then counts the larger
// of that ($0.94) and the cost of the partial usage ($0.094): ten times
// what the cache read cost. A key leaving cached turns (a user pressing
// Esc in Claude Code) was refused on a $0.50 budget after spending $0.09.
func TestH57LeftCachedStreamIsChargedAsCached(t *testing.T) {
	start := `{"cache_creation_input_tokens":0,"cache_read_input_tokens":188086,"input_tokens":21,"output_tokens":1}`
	stall := upstreamtest.Step{Stall: true, Events: []string{
		"event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_01","type":"message","role":"assistant","content":[],"model":"claude-opus-4-5","stop_reason":null,"stop_sequence":null,"usage":` + start + `}}`,
		"event: content_block_start\ndata: " + `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`,
		"event: content_block_delta\ndata: " + `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Pride"}}`,
	}}
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(stall, claudeAnswer())})
	cfg := `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.5}}
providers:
  - {name: anthropic, dialect: anthropic, base_url: "{anthropic}", api_key: ` + secret + `}
targets:
  - {name: claude, model: claude-opus-4-5, providers: [anthropic],
     price: {input: 5, output: 25, cached_input: 0.50, cache_write: 6.25}}
routes:
  - {name: deep, targets: [claude]}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, cfg, fs, clk)
	resp := openStream(t, g, "/v1/chat/completions",
		`{"model":"deep","stream":true,"messages":[{"role":"user","content":"summarise the book"}]}`)
	buf := make([]byte, 4096)
	for got := ""; !strings.Contains(got, "Pride"); {
		n, err := resp.Body.Read(buf)
		got += string(buf[:n])
		if err != nil {
			t.Fatalf("stream ended before its first content: %v %s", err, got)
		}
	}
	resp.Body.Close() // the client leaves
	d := g.recs.wait(t, 1)
	a := d.Attempts[0]
	real := (21*5 + 188086*0.5 + 1*25) / 1e6
	t.Logf("usage %+v cost %s estimate %+v; budget counts $%.6f, Anthropic bills ≈ $%.6f", a.Usage, usd(a.CostUSD), a.Estimate, a.BudgetUSD(), real)
	if a.BudgetUSD() > 2*real {
		t.Errorf("the left stream is counted $%.4f against the key's budget, %.0f times its cost: its 188,086 cached tokens priced at the plain input price", a.BudgetUSD(), a.BudgetUSD()/real)
	}
	if r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b"); r.Status == http.StatusTooManyRequests {
		t.Errorf("next request refused (%s) on a $0.50 budget after a stream that cost ≈ $%.2f", r.errMessage(t), real)
	}
}

// An upstream half-answers a non-streaming request: 200, a Content-Length,
// and half the body, then the connection ends. A whole answer's headers come
// once the model has written all of it (docs/config.md, provider timeout),
// so the generation ran in full and is billed; 40,000 bytes of its text had
// even arrived. Detour records the attempt billable (transport:eof) and
// sends the request again; before round 57 the key's limits counted the cut
// attempt's input alone and 0 output tokens, and a $0.01 budget admitted
// the next request after ~$0.10 of paid generation (hostile 57). The bytes
// read (as for a whole answer whose usage does not read: one token per 4
// bytes, round 51) are a floor.
func TestH57HalfAnsweredWholeAnswerCountsWhatArrived(t *testing.T) {
	text := strings.Repeat("word ", 8000) // 40,000 bytes: ~10,000 tokens, $0.10 at $10 per million
	body := `{"id":"chatcmpl-h","object":"chat.completion","created":1,"model":"gpt-4o","choices":[{"index":0,"message":{"role":"assistant","content":"` + text
	var calls atomic.Int32
	addr := rawTCP(t, func(c net.Conn) {
		defer c.Close()
		br := bufio.NewReader(c)
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		io.Copy(io.Discard, req.Body)
		if calls.Add(1) == 1 {
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+20000, body)
			return // half the answer, then the end
		}
		whole := upstreamtest.ChatJSON("gpt-4o", "short")
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", len(whole), whole)
	})
	cfg := `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.01}}
providers:
  - {name: p, dialect: openai, base_url: "http://` + addr + `", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [p], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, cfg, nil, clk)
	r := g.raw(t, http.MethodPost, "/v1/chat/completions",
		`{"model":"deep","messages":[{"role":"user","content":"write a long essay"}]}`, "Authorization", "Bearer key-team-b")
	d := g.recs.wait(t, 1)
	t.Logf("client: %d; upstream calls %d", r.Status, calls.Load())
	out := 0
	for i, a := range d.Attempts {
		e := "none"
		if a.Estimate != nil {
			e = fmt.Sprintf("input %d output %d $%.6f", a.Estimate.InputTokens, a.Estimate.OutputTokens, float64(a.Estimate.USD))
		}
		if i == 0 && a.Estimate != nil {
			out = a.Estimate.OutputTokens
		}
		t.Logf("attempt %d class %s evidence %q billable %v cost_unknown %v estimate %s", i, a.Class, a.Evidence, a.Billable, a.CostUnknown, e)
	}
	if out < 10000 {
		t.Errorf("the half-answered attempt counts %d output tokens; its generation ran whole and 40,000 bytes of it arrived (≥ 10,000 tokens)", out)
	}
	if r2 := g.post(t, "deep", "", "Authorization", "Bearer key-team-b"); r2.Status != http.StatusTooManyRequests {
		t.Errorf("next request: %d, want 429 on a $0.01 budget after a billed generation of ~$0.10", r2.Status)
	}
}

// TestH57LeavingAWholeAnswerStillCountsIt: a client with a budgeted key
// sends a non-streaming request and leaves just before its answer arrives.
// The upstream had run the whole generation (a whole answer's headers come
// once the model has written it; providers bill a non-streaming request
// they ran whatever its client did meanwhile: novita.ai's billing page,
// "Non-Streaming: Charged for actual token usage regardless of disconnect
// timing"). Before round 57 Detour dropped the upstream call when its
// client left and counted the input alone, so a key could run $1
// generations on a $0.50 budget for ever (hostile 57). The answer is read
// to its end now (within the provider's timeout), and its usage counted.
func TestH57LeavingAWholeAnswerStillCountsIt(t *testing.T) {
	long := upstreamtest.Step{Delay: 900 * time.Millisecond, Body: `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4o",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"` + strings.Repeat("word ", 2000) + `"},"finish_reason":"length"}],` +
		`"usage":{"prompt_tokens":20,"completion_tokens":100000,"total_tokens":100020}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(long, ok("gpt-4o", "y"))})
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.5}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: `+secret+`}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`, fs, clk)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"deep","max_tokens":100000,"messages":[{"role":"user","content":"write a very long essay"}]}`))
	req.Header.Set("Authorization", "Bearer key-team-b")
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("the answer came before the client left: %d", resp.StatusCode)
	}
	d := g.recs.wait(t, 1)
	if len(d.Attempts) != 1 || d.Outcome != "canceled" || d.Attempts[0].Usage == nil || d.Attempts[0].Usage.CompletionTokens != 100000 || !d.Attempts[0].Billable {
		b, _ := json.Marshal(d)
		t.Errorf("the record of the answer its client left: %s", b)
	}
	if r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b"); r.Status != http.StatusTooManyRequests {
		t.Errorf("next request: %d, want 429: the upstream billed 100,000 output tokens ($1) on a $0.50 budget", r.Status)
	}
	if fs["openai"].Calls() != 1 {
		t.Errorf("%d upstream calls", fs["openai"].Calls())
	}
}
