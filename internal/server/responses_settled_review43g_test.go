package server_test

import (
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A Codex user whose route's responses: true endpoint answers stream
// requests whole (a server that ignores "stream") relies on not paying for
// the same useless answer again: Detour does not ask that endpoint again
// itself (it would answer whole and bill again: outcome.settled), so it
// must not invite the SDK to ask again either. The answer says
// x-should-retry: false, as it does whenever no endpoint the request tried
// will serve it soon (docs/behaviour.md#api, "Whether to retry"). Before,
// the 502 left the SDK free to retry (openai-go and the OpenAI SDKs retry a
// 5xx twice), and each retry ran and billed the request again there.
func TestReview43gSettledWholeAnswerIsNotRetriedBySDK(t *testing.T) {
	whole := `{"id":"resp_1","object":"response","created_at":1,"status":"completed","model":"gpt-5","output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"whole","annotations":[]}]}],"usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}}`
	up := upstreamtest.New(func(int, upstreamtest.Request) upstreamtest.Step { return upstreamtest.Step{Body: whole} })
	t.Cleanup(up.Close)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: a, dialect: openai, base_url: "`+up.URL+`", api_key: sk-a, responses: true}
targets:
  - {name: ta, model: gpt-5, providers: [a]}
routes:
  - {name: r, targets: [ta]}
`), app.Options{Decisions: recs})
	resp, body := post(t, url, "/v1/responses", `{"model":"r","input":"hi","stream":true}`)
	if resp.StatusCode < 500 || up.Calls() != 1 {
		t.Fatalf("status %d, calls %d: %.300s", resp.StatusCode, up.Calls(), body)
	}
	if got := resp.Header.Get("X-Should-Retry"); got != "false" {
		t.Errorf("a failure whose endpoint answers the same and bills again: X-Should-Retry %q, want false (status %d, Retry-After %q)",
			got, resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if d := recs.Wait(t, 1); len(d.Attempts) != 1 || !d.Attempts[0].Billable {
		t.Errorf("attempts %+v", d.Attempts)
	}
}
