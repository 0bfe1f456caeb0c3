package browser

// Operator review 54: the console's money pages (Costs, Decisions, Keys) read by an operator of a
// shared gateway. Screenshots go to $DETOUR_SCREENSHOTS.

import (
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// OpenAI chat.completion with cached input (platform.openai.com/docs/guides/prompt-caching).
func op54OpenAI(model string, prompt, cached, completion int) upstreamtest.Step {
	return upstreamtest.Step{Header: map[string]string{"Content-Type": "application/json"}, Body: `{"id":"chatcmpl-op54","object":"chat.completion","created":1764489600,"model":"` + model + `",` +
		`"choices":[{"index":0,"message":{"role":"assistant","content":"Done.","refusal":null},"logprobs":null,"finish_reason":"stop"}],` +
		`"usage":{"prompt_tokens":` + itoa(prompt) + `,"completion_tokens":` + itoa(completion) + `,"total_tokens":` + itoa(prompt+completion) +
		`,"prompt_tokens_details":{"cached_tokens":` + itoa(cached) + `,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":0,"audio_tokens":0,"accepted_prediction_tokens":0,"rejected_prediction_tokens":0}}}`}
}

func itoa(n int) string { return strconv.Itoa(n) }

// Anthropic fast-mode answer (usage.speed "fast": anthropic-sdk-python types/beta/beta_usage.py)
// with cache reads and writes (platform.claude.com/docs/en/build-with-claude/prompt-caching).
const op54ClaudeFast = `{"id":"msg_01op54fast","type":"message","role":"assistant","model":"claude-opus-4-6",` +
	`"content":[{"type":"text","text":"Refactored."}],"stop_reason":"end_turn","stop_sequence":null,` +
	`"usage":{"input_tokens":2000,"cache_creation_input_tokens":10000,"cache_read_input_tokens":40000,"output_tokens":3000,` +
	`"cache_creation":{"ephemeral_5m_input_tokens":10000,"ephemeral_1h_input_tokens":0},"service_tier":"standard","speed":"fast"}}`

// Gemini generateContent over 200k prompt tokens (ai.google.dev/api/generate-content#UsageMetadata).
const op54Gemini = `{"candidates":[{"content":{"role":"model","parts":[{"text":"Summary."}]},"finishReason":"STOP","index":0}],` +
	`"usageMetadata":{"promptTokenCount":300000,"candidatesTokenCount":1000,"totalTokenCount":301000},"modelVersion":"gemini-2.5-pro"}`

const op54Cfg = `
client_keys:
  - {name: research, key: key-research-0001, budget: {usd_per_day: 500}}
  - {name: agents, key: key-agents-00001}
  - {name: webapp, key: key-webapp-00001}
providers:
  - {name: openai, dialect: openai, base_url: "{oa}/v1", api_key: ` + secret + `}
  - {name: openai-pro, dialect: openai, base_url: "{pro}/v1", api_key: ` + secret + `}
  - {name: anthropic, dialect: anthropic, base_url: "{anth}", api_key: ` + secret + `}
  - {name: gemini, dialect: gemini, base_url: "{gem}", api_key: ` + secret + `}
  - {name: selfhost, dialect: openai, base_url: "{slow}/v1", api_key: ` + secret + `, timeout: 300ms}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 2.5, output: 10, cached_input: 1.25}}
  - {name: o1-pro, model: o1-pro, providers: [openai-pro], price: {input: 150, output: 600}}
  - {name: opus, model: claude-opus-4-6, providers: [anthropic], price: {input: 5, output: 25, cached_input: 0.5, cache_write: 6.25, fast: {input: 30, output: 150, cached_input: 3, cache_write: 37.5}}}
  - {name: pro, model: gemini-2.5-pro, providers: [gemini], price: {input: 1.25, output: 10, long_context: {above: 200000, input: 2.5, output: 15}}}
  - {name: llama, model: llama-3.3-70b, providers: [selfhost], price: {input: 0.5, output: 1}}
routes:
  - {name: deep, targets: [llama, gpt]}
`

func op54Fakes(t *testing.T) map[string]*upstreamtest.Server {
	fs := map[string]*upstreamtest.Server{
		"oa":   upstreamtest.New(upstreamtest.Steps(op54OpenAI("gpt-4o-2024-08-06", 2000, 1500, 100))),
		"pro":  upstreamtest.New(upstreamtest.Steps(op54OpenAI("o1-pro-2025-03-19", 60000, 0, 20000))),
		"anth": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Header: map[string]string{"Content-Type": "application/json"}, Body: op54ClaudeFast})),
		"gem":  upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Header: map[string]string{"Content-Type": "application/json"}, Body: op54Gemini})),
		"slow": upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Delay: 2 * time.Second, Body: upstreamtest.ChatJSON("llama-3.3-70b", "late")})),
	}
	for _, f := range fs {
		t.Cleanup(f.Close)
	}
	return fs
}

func (g *gateway) op54Messages(t *testing.T, key, model string) {
	t.Helper()
	body := `{"model":"` + model + `","max_tokens":4096,"speed":"fast","messages":[{"role":"user","content":"Refactor this function."}]}`
	req, _ := http.NewRequest("POST", g.URL+"/v1/messages", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("x-api-key", key)
	req.Header.Set("anthropic-version", "2023-06-01")
	req.Header.Set("anthropic-beta", "fast-mode-2026-02-01")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("messages: %d", resp.StatusCode)
	}
}

func op54Traffic(t *testing.T, g *gateway) int {
	auth := func(k string) []string { return []string{"Authorization", "Bearer " + k} }
	n := 0
	must := func(model, key string) {
		t.Helper()
		if _, st := g.chat(t, model, auth(key)...); st != 200 {
			t.Fatalf("%s %s: %d", key, model, st)
		}
		n++
	}
	for range 3 {
		must("o1-pro", "key-research-0001") // $21 each
	}
	must("pro", "key-research-0001")
	g.op54Messages(t, "key-agents-00001", "opus")
	n++
	must("deep", "key-webapp-00001")
	must("gpt", "key-webapp-00001")
	return n
}

// Operator review 54, F3. The Costs page's Cost column writes dollars with four decimals below $10
// and two above, and never a thousands separator, while every token column has one (1,234,567):
// a web app's day of o1-pro reads "$1260.00" above "$1.0050", whose digits line up neither
// by the decimal point nor by magnitude. Fourteen o1-pro requests of 200,000 input and 100,000
// output tokens at $150/$600 per million (OpenAI's o1-pro price) cost $1,260.
func TestOp54CostsAreWrittenWithThousandsSeparators(t *testing.T) {
	b := newBrowser(t)
	fs := op54Fakes(t)
	fs["pro"].SetScript(upstreamtest.Steps(op54OpenAI("o1-pro-2025-03-19", 200000, 0, 100000)))
	g := startGateway(t, op54Cfg, fs)
	for range 14 {
		if _, st := g.chat(t, "o1-pro", "Authorization", "Bearer key-webapp-00001"); st != 200 {
			t.Fatalf("o1-pro: %d", st)
		}
	}
	g.op54Messages(t, "key-agents-00001", "opus")
	g.recs.Wait(t, 15)
	b.do(t, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(g.URL+"/ui/costs"))
	b.mustWait(t, "the costs", `document.querySelectorAll('#costs tbody tr').length === 2`)
	b.screenshot(t, "op54-f3-costs-thousands")
	cells := eval[[]string](t, b, `[...document.querySelectorAll('#costs td[data-label="Cost"]')].map(c => c.textContent)`)
	sum := eval[string](t, b, `document.querySelector('#costs-summary').textContent`)
	t.Logf("Cost column: %q; summary: %q", cells, sum)
	if len(cells) == 0 || cells[0] != "$1,260.00" || !strings.Contains(sum, "$1,261.0") {
		t.Errorf("the Cost column reads %q and the summary %q; the token columns separate thousands, the dollars do not ($1,260.00, $1,261.01)", cells, sum)
	}
}

// Operator review 54, F6. `webapp` has no budget (docs/console.md: "A key without limits counts
// nothing"). Its request met a timeout at llama (billable, usage unknown) and was answered by gpt.
// The Costs page then says "budgets counted < $0.0001 more for them", fills webapp's "Budget
// estimate" cell, and the request's failover path says "budgets counted < $0.0001" — for a key no
// budget counts. The figure is Detour's estimate of the unknown cost (the record's `estimate`,
// written whatever the key's limits); the words claim a budget spent it.
func TestOp54NoBudgetIsSaidToCountForAKeyWithoutOne(t *testing.T) {
	b := newBrowser(t)
	g := startGateway(t, op54Cfg, op54Fakes(t))
	id, st := g.chat(t, "deep", "Authorization", "Bearer key-webapp-00001")
	if st != 200 {
		t.Fatalf("deep: %d", st)
	}
	g.recs.Wait(t, 1)
	b.do(t, chromedp.EmulateViewport(1280, 800), chromedp.Navigate(g.URL+"/ui/costs"))
	b.mustWait(t, "the costs", `document.querySelectorAll('#costs tbody tr').length === 1`)
	b.screenshot(t, "op54-f6-costs-nobudget")
	sum := eval[string](t, b, `document.querySelector('#costs-summary').textContent`)
	cell := eval[string](t, b, `document.querySelector('#costs td[data-label="Estimated"]').textContent`)
	b.do(t, chromedp.Navigate(g.URL+"/ui/decisions?id="+id))
	b.mustWait(t, "the failover path", `!document.querySelector('#detail').hidden && document.querySelectorAll('#detail .step').length === 2`)
	b.screenshot(t, "op54-f6-path-nobudget")
	detail := eval[string](t, b, `document.querySelector('#detail').textContent`)
	t.Logf("summary %q; webapp's Budget estimate cell %q", sum, cell)
	if strings.Contains(sum, "budgets counted") || strings.Contains(detail, "budgets counted") || !strings.HasPrefix(cell, "< $") {
		t.Errorf("webapp has no budget, yet the Costs summary says %q, its Budget estimate cell %q, and its failover path says budgets counted: nothing counted it", sum, cell)
	}
}
