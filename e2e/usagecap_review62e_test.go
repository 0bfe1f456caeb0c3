package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 62e (hostile review of the usage cap, ceiling.go): each failed against
// its first version, which bounded the output by the request's max_tokens and the
// prompt by 2^21 beyond the body.

// A client pays less than it used: llama.cpp's server reads n_predict
// before max_tokens (params.n_predict = json_value(data, "n_predict",
// json_value(data, "max_tokens", …)), and its OpenAI endpoint copies the
// body's other members into its params). Detour passes unknown members as
// sent, so max_tokens: 1 with n_predict: 4096 gets a 4,096-token answer,
// reported honestly, which the first cap billed as 1 token — for the key's
// budget and for its tokens_per_minute alike.
func TestReview62eClientLimitNameTheCapDoesNotRead(t *testing.T) {
	var got string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got = string(b)
		w.Header().Set("Content-Type", "application/json")
		// What llama.cpp answers when n_predict (4096) wins over max_tokens.
		io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"`+strings.Repeat("word ", 50)+`"},"finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":4096,"total_tokens":4105}}`)
	}))
	defer up.Close()
	g := start(t, `
client_keys:
  - {name: team, key: key-team, rate: {tokens_per_minute: 1000}, budget: {usd_per_month: 100}}
providers:
  - {name: llama, dialect: openai, base_url: "`+up.URL+`", api_key: `+secret+`}
targets:
  - {name: t, model: m, providers: [llama], price: {input: 3, output: 15}}
routes:
  - {name: r, targets: [t]}
`, map[string]*upstreamtest.Server{})
	body := `{"model":"r","max_tokens":1,"n_predict":4096,"messages":[{"role":"user","content":"hi"}]}`
	ok := 0
	for i := 0; i < 5; i++ {
		r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer key-team")
		if r.Status == 200 {
			ok++
		}
		if i == 0 {
			d := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
			cost := -1.0
			if d.CostUSD != nil {
				cost = float64(*d.CostUSD)
			}
			t.Logf("upstream got %s; record usage %+v cost $%.6f", got, d.Usage, cost)
			if d.Usage != nil && d.Usage.CompletionTokens < 4096 {
				t.Errorf("the upstream honestly wrote 4096 tokens (n_predict, a member Detour passes as sent); billed %d (capped %v)",
					d.Usage.CompletionTokens, d.Usage.Capped)
			}
		}
	}
	// tokens_per_minute 1000: one honest 4,105-token answer spends it.
	if ok > 1 {
		t.Errorf("tokens_per_minute 1000 admitted %d answers of 4,105 tokens each", ok)
	}
}

// A legitimate provider's honest count was capped: previous_response_id is
// refused by the Responses door (held), but a Messages body passed to
// Claude may bring content Detour never sees — a PDF by URL or file_id —
// and a server tool's loop (web_fetch, web_search: up to 10 sampling
// iterations before pause_turn) reads the whole context again each turn.
// A 400-byte body, a 250,000-token document and 10 iterations is ~2.6M
// input tokens Anthropic bills; the first bound was 2^21 + 16 x 400.
func TestReview62eServerToolLoopOverFetchedDocumentNotCapped(t *testing.T) {
	const u = `{"input_tokens":2600000,"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":900,"server_tool_use":{"web_fetch_requests":9}}`
	fs := fakes(t, map[string]upstreamtest.Script{"anthropic": script(claudeAnswerWith(u)), "relay": script(ok("x", "x"))})
	g := start(t, cacheCfg+"routes:\n  - {name: c, targets: [claude]}\n", fs)
	body := `{"model":"c","max_tokens":4096,"messages":[{"role":"user","content":[{"type":"document","source":{"type":"url","url":"https://example.com/annual-report.pdf"}},{"type":"text","text":"Check each claim against the sources it cites."}]}],"tools":[{"type":"web_fetch_20250910","name":"web_fetch","max_uses":9}]}`
	r := g.raw(t, "POST", "/v1/messages", body, "x-api-key", "key-admin", "anthropic-version", "2023-06-01")
	r.wantStatus(t, 200)
	d := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
	cost := -1.0
	if d.CostUSD != nil {
		cost = float64(*d.CostUSD)
	}
	t.Logf("body %d bytes; record usage %+v cost $%.4f (Anthropic's bill $%.4f)", len(body), d.Usage, cost, (2600000*5+900*25)/1e6)
	if d.Usage == nil || d.Usage.PromptTokens != 2600000 || d.Usage.Capped {
		t.Errorf("an honest server-tool loop's 2,600,000 input tokens recorded as %+v", d.Usage)
	}
}
