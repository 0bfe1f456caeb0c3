package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 62b (usage lies): one answer to a request capped at max_tokens 16
// reports a count no answer to it could have used (a uint32 -1, as an
// unsigned underflow in a self-hosted server writes it; 2^63-1). Detour
// counts what was reported (docs/design.md, "Client limits, usage and
// cost"), and one lying answer spent a month's budget. Now a count past
// what the answer could have used (its bytes and a reasoning room) is no
// count: Detour's estimate stands in, and the record says capped.
func TestReview62bImpossibleUsageIsNoCount(t *testing.T) {
	for _, tc := range []struct {
		name, usage string
		capped      bool
		completion  int
	}{
		// Past what the answer's bytes and a reasoning room allow: no
		// count, so Detour's estimate of the answer stands in.
		{"completion uint32 -1", `{"prompt_tokens":9,"completion_tokens":4294967295,"total_tokens":4294967304}`, true, -1},
		{"prompt 2^63-1", `{"prompt_tokens":9223372036854775807,"completion_tokens":3,"total_tokens":9223372036854775807}`, false, 3},
		{"total only huge", `{"prompt_tokens":9,"completion_tokens":3,"total_tokens":9007199254740993}`, true, -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hel"},"finish_reason":"stop"}],"usage":`+tc.usage+`}`)
			}))
			defer up.Close()
			g := start(t, `
client_keys:
  - {name: team, key: key-team, budget: {usd_per_month: 100}}
providers:
  - {name: p, dialect: openai, base_url: "`+up.URL+`", api_key: `+secret+`}
targets:
  - {name: t, model: m, providers: [p], price: {input: 3, output: 15}}
routes:
  - {name: r, targets: [t]}
`, map[string]*upstreamtest.Server{})
			body := `{"model":"r","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}`
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer key-team")
			r.wantStatus(t, 200)
			d := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
			cost := -1.0
			if d.CostUSD != nil {
				cost = float64(*d.CostUSD)
			}
			next := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer key-team")
			t.Logf("usage %s → record usage %+v cost $%.2f; next request: %d %.160s", tc.usage, d.Usage, cost, next.Status, next.Body)
			// A three-word answer to a 2-token prompt costs well under a
			// cent at these prices.
			if cost > 0.01 || next.Status != 200 {
				t.Errorf("one answer whose usage no max_tokens:16 request can reach cost $%.2f and the key's next request got %d", cost, next.Status)
			}
			if d.Usage == nil || d.Usage.Capped != tc.capped || tc.completion >= 0 && d.Usage.CompletionTokens != tc.completion ||
				tc.completion < 0 && d.Usage.CompletionTokens > 100 {
				t.Errorf("record usage %+v, want capped %v and completion_tokens %d (-1: Detour's estimate of a short answer)", d.Usage, tc.capped, tc.completion)
			}
		})
	}
}
