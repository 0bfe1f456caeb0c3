package server_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A Claude Code user whose route's first target lists an OpenAI-compatible
// account before its Anthropic one relies on count_tokens being exact: the
// first target has an Anthropic endpoint, so Detour asks it
// (docs/doors.md, "count_tokens"), and the pass-over at the endpoint that
// cannot count (nothing sent: evidence translate) spends none of the one
// attempt a count has (docs/behaviour.md, "Budgets"). Before, the
// pass-over was the count's one attempt, and the client got an estimate.
func TestReview43gCountTokensPassOverSpendsNoAttempt(t *testing.T) {
	oai := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hi")}
	})
	an := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step {
		return upstreamtest.Step{Body: `{"input_tokens":4242}`}
	})
	t.Cleanup(oai.Close)
	t.Cleanup(an.Close)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: o, dialect: openai, base_url: "`+oai.URL+`", api_key: sk-o}
  - {name: a, dialect: anthropic, base_url: "`+an.URL+`", api_key: sk-a}
targets:
  - {name: t, model: claude-sonnet-4-5, providers: [o, a]}
routes:
  - {name: r, targets: [t]}
`), app.Options{Decisions: recs})
	resp, body := post(t, url, "/v1/messages/count_tokens", `{"model":"r","messages":[{"role":"user","content":"hello"}]}`)
	if resp.StatusCode != http.StatusOK || !strings.Contains(body, "4242") || an.Calls() != 1 || oai.Calls() != 0 {
		t.Errorf("count_tokens, first target [openai, anthropic]: %d %.200s (anthropic calls %d, openai %d); want the Anthropic endpoint's exact count",
			resp.StatusCode, body, an.Calls(), oai.Calls())
	}
}
