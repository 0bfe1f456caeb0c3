package e2e

import (
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 69j: an upstream's usage with a negative count (a signed
// underflow: completion_tokens -5) billed a written answer nothing, whole
// or streamed: 0 tokens, $0, the key's budget untouched. Such a count is none an answer
// can have, as one past the bound (TestReview62bImpossibleUsageIsNoCount):
// Detour's estimate stands in and the record says capped.
func TestReview69jNegativeUsageIsNoCount(t *testing.T) {
	for _, usage := range []string{
		`{"prompt_tokens":9,"completion_tokens":-5,"total_tokens":4.6e18}`,
		`{"prompt_tokens":9,"completion_tokens":-5,"total_tokens":4}`,
		`{"prompt_tokens":-9,"completion_tokens":-5,"total_tokens":-14}`,
	} {
		for _, stream := range []bool{false, true} {
			up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.ReadAll(r.Body)
				if stream {
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":\"Hello there friend, a long answer here\"},\"finish_reason\":null}]}\n\n")
					io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\n")
					io.WriteString(w, "data: {\"id\":\"c\",\"object\":\"chat.completion.chunk\",\"created\":1,\"model\":\"m\",\"choices\":[],\"usage\":"+usage+"}\n\ndata: [DONE]\n\n")
					return
				}
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"Hello there friend, a long answer here"},"finish_reason":"stop"}],"usage":`+usage+`}`)
			}))
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
			body := `{"model":"r","messages":[{"role":"user","content":"hi"}]}`
			if stream {
				body = `{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"}]}`
			}
			r := g.raw(t, http.MethodPost, "/v1/chat/completions", body, "Authorization", "Bearer key-team")
			d := g.recs.byID(t, r.Header.Get("X-Detour-Decision"))
			cost := -1.0
			if d.CostUSD != nil {
				cost = float64(*d.CostUSD)
			}
			r.wantStatus(t, 200)
			if d.Usage == nil || !d.Usage.Capped || d.Usage.PromptTokens <= 0 || d.Usage.CompletionTokens < 8 || cost <= 0 || cost > 0.01 {
				t.Errorf("stream %v, usage %s: recorded %+v at $%g, want capped, Detour's estimate of a 2-token prompt and a 9-word answer, a cost above 0", stream, usage, d.Usage, cost)
			}
			up.Close()
		}
	}
}
