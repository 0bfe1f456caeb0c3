package e2e

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63a: the prompt's bound (ceiling.go) is 16 times the request's
// bytes plus 2^24 tokens. Stored conversations are refused at the
// Responses door, but a hosted MCP tool whose server is the client's own
// (passed to a native target as written) puts context in the prompt that
// is not in the body: the client's server answers each call with a large
// result, and the hosted loop counts the whole context again on each turn.
// The client chooses the turns (max_tool_calls): twenty turns over ~900K
// tokens is an honest 18M, past the bound. Round 62 replaced such a count
// by the estimate of the client's 245-byte body, and the key paid $0.02
// of $10.37. A request that has the upstream run tools of its own is
// billed at the bound (docs/config.md, "Usage and cost").

const review63aCapCfg = `
client_keys:
  - {name: team, key: key-team, budget: {usd_per_month: 100}}
providers:
  - {name: openai, dialect: openai, base_url: "{openai}", api_key: ` + secret + `, responses: true}
targets:
  - {name: gpt, model: gpt-4.1, providers: [openai], price: {input: 2, cached_input: 0.5, output: 8}}
routes:
  - {name: agent, targets: [gpt]}
`

func TestReview63aHostedToolLoopIsPaidAtTheBound(t *testing.T) {
	const in, cached, out = 18_000_000, 17_100_000, 3_000
	answer := fmt.Sprintf(`{"id":"resp_2","object":"response","created_at":1767225600,"status":"completed","model":"gpt-4.1-2025-04-14","output":[{"id":"mcp_1","type":"mcp_call","server_label":"notes","name":"fetch_notes","arguments":"{}","output":"(900K tokens)"},{"id":"msg_2","type":"message","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Done: twenty searches, summary below.","annotations":[]}]}],"usage":{"input_tokens":%d,"input_tokens_details":{"cached_tokens":%d},"output_tokens":%d,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":%d},"error":null,"incomplete_details":null,"tools":[{"type":"mcp","server_label":"notes","server_url":"https://notes.client.example/mcp","require_approval":"never"}],"text":{"format":{"type":"text"}},"metadata":{}}`,
		in, cached, out, in+out)
	fs := fakes(t, map[string]upstreamtest.Script{"openai": script(upstreamtest.Step{Body: answer})})
	g := start(t, review63aCapCfg, fs)
	body := `{"model":"agent","input":"Call fetch_notes twenty times, page 1 to 20, then summarise.","tools":[{"type":"mcp","server_label":"notes","server_url":"https://notes.client.example/mcp","require_approval":"never"}],"max_tool_calls":20,"store":false}`
	r := g.raw(t, http.MethodPost, "/v1/responses", body, "Authorization", "Bearer key-team")
	r.wantStatus(t, 200)
	d := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
	honest := (float64(in-cached)*2 + float64(cached)*0.5 + float64(out)*8) / 1e6
	billed := -1.0
	if d.CostUSD != nil {
		billed = float64(*d.CostUSD)
	}
	t.Logf("body %d bytes; bound %d prompt tokens; record usage %+v; billed $%.6f, the upstream's bill $%.2f", len(body), 1<<24+16*len(body), d.Usage, billed, honest)
	if d.Usage == nil || !d.Usage.Capped || d.Usage.PromptTokens != 1<<24+16*len(body) || billed < honest*0.8 {
		t.Errorf("an honest 18M-token hosted-tool loop: the key paid $%.6f of $%.2f (usage %+v), want the bound's prompt, capped",
			billed, honest, d.Usage)
	}
}
