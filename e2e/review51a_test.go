package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestR51aTooLargeAnswerChargesOnlyTheInput: a client key with a $1 daily
// budget asks for n=4 choices with logprobs (top_logprobs 20). The upstream
// runs it honestly: 4 × 14,000 output tokens (~73 MB, past the 64 MiB
// Detour holds), which at the target's output price of $100 per million is
// $5.60 the operator pays the provider. Round 51 makes this answer
// overflow, billable, settled — but the attempt carries no usage (the
// usage block at the end of the JSON was never read), so only an Estimate
// of the input is charged to the key: the client spent $5.60 on a $1
// budget and is still admitted. It can repeat this all day: every answer
// it makes too large costs its budget the input alone.
func TestR51aTooLargeAnswerChargesOnlyTheInput(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		h51LogprobsAnswer(w, 4, 14000)
	}))
	t.Cleanup(up.Close)
	cfg := `
client_keys:
  - {name: tight, key: key-tight, budget: {usd_per_day: 1}}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `}
targets:
  - {name: a, model: gpt-4o, providers: [p], price: {input: 1, output: 100}}
routes:
  - {name: r, targets: [a]}
`
	g := start(t, cfg, map[string]*upstreamtest.Server{"p": {Server: up}})
	body := `{"model":"r","messages":[{"role":"user","content":"Write a long story."}],"n":4,"max_tokens":16000,"logprobs":true,"top_logprobs":20}`
	r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer key-tight")
	d := g.recs.wait(t, 1)
	usd := 0.0
	for i := range d.Attempts {
		usd += d.Attempts[i].BudgetUSD()
	}
	t.Logf("first: %d %.200s; attempts %d, charged to the budget $%g", r.Status, r.Body, len(d.Attempts), usd)
	r2 := g.raw(t, http.MethodPost, "/v1/chat/completions", `{"model":"r","messages":[{"role":"user","content":"hi"}]}`, "Authorization", "Bearer key-tight")
	t.Logf("second: %d %.200s", r2.Status, r2.Body)
	if usd < 1 || r2.Status != http.StatusTooManyRequests || !strings.Contains(string(r2.Body), "usd_per_day") {
		t.Errorf("an answer of 56,000 output tokens ($5.60 at the provider) was charged $%g to a $1 budget, and the next request got %d, want 429 usd_per_day", usd, r2.Status)
	}
}
