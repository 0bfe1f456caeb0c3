package e2e

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 33b (money): what a client's limits count against what the
// loopback upstreams ran.

// An Anthropic-compatible server that reports input_tokens: 0 in
// message_start (SGLang's /v1/messages before sgl-project/sglang#20830,
// mlx-node, and any server that learns the count only at the end) gives a
// cut stream a "partial count" of zero. account() then records Usage
// {0,0} and a known cost of $0, and because Usage is non-nil no Estimate
// is made: the client that leaves after the first content spends nothing,
// however long its prompt. docs/config.md promises the opposite ("So a
// client cannot spend for free by leaving each stream before its count
// arrives"). The same request whose upstream sent no usage at all is
// refused next time (TestLeavingAStreamStillSpendsItsInput).
func TestReview33bZeroPartialCountLetsALeftStreamSpendNothing(t *testing.T) {
	start := `event: message_start
data: {"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":0,"output_tokens":0}}}`
	block := `event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`
	delta := `event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hel"}}`
	stall := upstreamtest.Step{Events: []string{start, block, delta}, Stall: true}
	fs := fakes(t, map[string]upstreamtest.Script{"anth": script(stall, anthropicOK)})
	cfg := `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.01}}
providers:
  - {name: anth, dialect: anthropic, base_url: "{anth}", api_key: ` + secret + `}
targets:
  - {name: claude, model: m, providers: [anth], price: {input: 3.00, output: 15.00}}
routes:
  - {name: deep, targets: [claude]}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, cfg, fs, clk)
	// A 40,000-byte prompt: about 10,000 tokens, $0.03 at $3 per million,
	// three times the day's $0.01.
	prompt := strings.Repeat("budget ", 40000/7)
	body := `{"model":"deep","stream":true,"messages":[{"role":"user","content":"` + prompt + `"}]}`
	leaveStreamZero(t, g, body)
	d := g.recs.wait(t, 1)
	a := d.Attempts[0]
	if a.CostUSD.Known() {
		t.Logf("attempt: billable %v usage %+v cost $%g unknown %v estimate %+v", a.Billable, a.Usage, float64(*a.CostUSD), a.CostUnknown, a.Estimate)
	}
	r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b")
	if r.Status != 429 {
		t.Errorf("after leaving a ~10,000-token stream on a $0.01 budget: status %d, want 429 by usd_per_day (the upstream ran the prompt; the spend counted $0)", r.Status)
	}
	if n := fs["anth"].Calls(); n != 1 {
		t.Errorf("upstream calls %d, want 1", n)
	}
}

// anthropicOK is a whole Messages answer.
var anthropicOK = upstreamtest.Step{Body: `{"id":"msg_2","type":"message","role":"assistant","model":"m",` +
	`"content":[{"type":"text","text":"y"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":5,"output_tokens":1}}`}

// leaveStreamZero is leaveStream without its record check (the attempt's
// cost is known, $0, here).
func leaveStreamZero(t *testing.T, g *gateway, body string) {
	t.Helper()
	resp := openStream(t, g, "/v1/chat/completions", body)
	buf := make([]byte, 4096)
	var got string
	for !strings.Contains(got, `"hel"`) {
		n, err := resp.Body.Read(buf)
		got += string(buf[:n])
		if err != nil {
			t.Fatalf("stream ended before its first content: %v %s", err, got)
		}
	}
	resp.Body.Close()
}

// openStream POSTs body to path as team-b and returns the open response.
func openStream(t *testing.T, g *gateway, path, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, g.URL+path, strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer key-team-b")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// The estimate a left stream spends (docs/config.md, client_keys: "1,600
// tokens for each inline image or file") counts an image sent by URL — the
// form most clients use, which the provider fetches and bills exactly as
// the inline one — by the bytes of its URL: ten images are ~100 tokens
// instead of 16,000, so a client that leaves each stream after its first
// content spends about 1 % of what the provider charges for the images
// (and a PDF by file_id, a Gemini fileData.fileUri, an Anthropic
// {"type":"url"} source, the same). The control (data: URLs) is refused.
func TestReview33bImageByURLLeftStreamSpendsItsURLBytes(t *testing.T) {
	for _, tc := range []struct{ name, url string }{
		{"inline", "data:image/png;base64," + strings.Repeat("iVBORw0KGgo", 200)},
		{"url", "https://images.example.com/photos/2026/12/01/holiday-at-the-sea-0001.jpg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := upstreamtest.ChatStream("gpt-4o", "hel", "lo")
			stall := upstreamtest.Step{Events: evs[:2], Stall: true} // role and first content; no usage yet
			fs := fakes(t, map[string]upstreamtest.Script{"openai": script(stall, ok("gpt-4o", "y"))})
			cfg := strings.Replace(hugeUsageCfg, "budget: {usd_per_day: 1}, rate: {tokens_per_minute: 100000}", "rate: {tokens_per_minute: 10000}", 1)
			clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
			g := startClock(t, cfg, fs, clk)
			var parts []string
			for i := 0; i < 10; i++ {
				parts = append(parts, `{"type":"image_url","image_url":{"url":"`+tc.url+`"}}`)
			}
			body := `{"model":"deep","stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"describe"},` +
				strings.Join(parts, ",") + `]}]}`
			leaveStream(t, g, "/v1/chat/completions", body, `"hel"`)
			d := g.recs.wait(t, 1)
			t.Logf("estimate: %+v", d.Attempts[0].Estimate)
			r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b")
			if r.Status != 429 {
				t.Errorf("after leaving a stream with ten images on a 10,000 tokens_per_minute key: status %d, want 429", r.Status)
			}
		})
	}
}

// xAI reports reasoning tokens beside completion_tokens, not inside it
// (its own example: prompt 32 + completion 9 + reasoning 94 = total 135;
// Gemini's OpenAI-compatible endpoint does the same with its thoughts):
// both are billed as output. Detour prices completion_tokens alone, so the
// record, /metrics, `detour usage` and the key's budget see 9 output
// tokens where the provider bills 103 — a reasoning model's cost is a
// fraction of its bill, and a usd_per_day key overspends by as much.
func TestReview33bAdditiveReasoningTokensAreNotPriced(t *testing.T) {
	grok := upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"grok-4",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"x"},"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":32,"completion_tokens":9,"total_tokens":135,` +
		`"prompt_tokens_details":{"text_tokens":32,"audio_tokens":0,"image_tokens":0,"cached_tokens":0},` +
		`"completion_tokens_details":{"reasoning_tokens":94,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"xai": script(grok)})
	cfg := `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 100}}
providers:
  - {name: xai, dialect: openai, base_url: "{xai}", api_key: ` + secret + `}
targets:
  - {name: grok, model: grok-4, providers: [xai], price: {input: 3.00, output: 15.00}}
`
	g := startClock(t, cfg, fs, testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
	g.post(t, "grok", "", "Authorization", "Bearer key-team-b").wantStatus(t, 200)
	d := g.recs.wait(t, 1)
	want := (32*3.00 + (9+94)*15.00) / 1e6 // what xAI bills
	if d.CostUSD == nil || float64(*d.CostUSD) < want*0.999 {
		got := -1.0
		if d.CostUSD.Known() {
			got = float64(*d.CostUSD)
		}
		t.Errorf("recorded cost $%.6f (usage %+v), want $%.6f: the 94 reasoning tokens are billed as output", got, d.Usage, want)
	}
}

// A request's spend is rounded to the nearest micro-dollar
// (limit.Spend: math.Round(usd*1e6)), so every request that costs less
// than half a micro-dollar — a short embedding at $0.02 per million
// tokens (24 tokens: $0.00000048), a one-line classification at a cheap
// model — spends nothing against the key's budget, however many are sent:
// the records sum past the budget while the key is admitted on and on.
func TestReview33bSubMicroDollarRequestsNeverSpend(t *testing.T) {
	small := upstreamtest.Step{Body: `{"object":"list","data":[{"object":"embedding","index":0,"embedding":[0.1,0.2]}],` +
		`"model":"text-embedding-3-small","usage":{"prompt_tokens":24,"total_tokens":24}}`}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(small)})
	cfg := `
client_keys:
  - {name: team-b, key: key-team-b, budget: {usd_per_day: 0.000001}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: small, model: text-embedding-3-small, providers: [openai], price: {input: 0.02, output: 0}}
`
	g := startClock(t, cfg, fs, testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)))
	var recorded float64
	for i := 1; i <= 5; i++ {
		r := g.raw(t, "POST", "/v1/embeddings", `{"model":"small","input":"a short sentence to embed, about twenty-four tokens long in all"}`,
			"Authorization", "Bearer key-team-b")
		if r.Status == 429 {
			if recorded < 0.000001 {
				t.Fatalf("refused at request %d with $%.8f recorded, under the budget", i, recorded)
			}
			return
		}
		r.wantStatus(t, 200)
		if d := g.recs.wait(t, i); d.CostUSD.Known() {
			recorded += float64(*d.CostUSD)
		}
	}
	t.Errorf("5 requests admitted on a $0.000001 daily budget; the records say $%.8f was spent (%.1f× the budget): each rounded to $0",
		recorded, recorded/0.000001)
}

// A budget the operator adds by a reload (SIGHUP) to stop a key's
// spending does not count what that key's requests in flight spend: each
// keeps the *config.ClientKey it was admitted under, and Limiter.Spend
// returns early for a key that was not Limited() then (and the request was
// not Metered, so its last event is not held either). A key running long
// agent streams keeps spending past the new budget until its streams
// end, each uncounted; the next request is admitted as if nothing was spent.
func TestReview33bBudgetAddedByReloadIgnoresStreamsInFlight(t *testing.T) {
	evs := upstreamtest.ChatStream("gpt-4o", "hel", "lo", "!")
	evs[len(evs)-2] = `{"id":"chatcmpl-test","object":"chat.completion.chunk","created":1764489600,"model":"gpt-4o","choices":[],` +
		`"usage":{"prompt_tokens":100000,"completion_tokens":100000,"total_tokens":200000}}` // $1.25
	slow := upstreamtest.Step{Events: evs, EventDelay: 300 * time.Millisecond}
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(slow, ok("gpt-4o", "y"))})
	before := `
client_keys:
  - {name: team-b, key: key-team-b, routes: [deep]}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.50, output: 10.00}}
routes:
  - {name: deep, targets: [gpt]}
`
	clk := testutil.NewClock(time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
	g := startClock(t, before, fs, clk)
	resp := openStream(t, g, "/v1/chat/completions", `{"model":"deep","stream":true,"messages":[{"role":"user","content":"go"}]}`)
	buf := make([]byte, 4096)
	var got string
	for !strings.Contains(got, `"hel"`) {
		n, err := resp.Body.Read(buf)
		got += string(buf[:n])
		if err != nil {
			t.Fatalf("stream: %v %s", err, got)
		}
	}
	// The operator caps the key at $1 a day while its stream runs.
	after := strings.Replace(before, "routes: [deep]}", "routes: [deep], budget: {usd_per_day: 1}}", 1)
	if err := g.app.Reload(gatewaytest.Config(t, strings.ReplaceAll(after, "{openai}", fs["openai"].URL))); err != nil {
		t.Fatal(err)
	}
	rest, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(rest), "[DONE]") {
		t.Fatalf("stream did not finish: %s", rest)
	}
	d := g.recs.wait(t, 1)
	if !d.CostUSD.Known() || float64(*d.CostUSD) < 1 {
		t.Fatalf("record cost %v, want $1.25", d.CostUSD)
	}
	if r := g.post(t, "deep", "", "Authorization", "Bearer key-team-b"); r.Status != 429 {
		t.Errorf("after a $%.2f stream that ended under a $1 daily budget: status %d, want 429 by usd_per_day", float64(*d.CostUSD), r.Status)
	}
}
