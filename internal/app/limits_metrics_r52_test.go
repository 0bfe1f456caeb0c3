package app_test

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A limited client key's use of each limit, and the limit, are on /metrics
// at every scrape (the carried "no budget gauges"): an operator can alert
// before a key is refused, not only after (detour_limit_refusals_total).
func TestLimitGauges(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: `{"id":"c","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000,"completion_tokens":1000,"total_tokens":2000}}`}))
	t.Cleanup(up.Close)
	cfg := gatewaytest.Config(t, `client_keys:
  - {name: team-a, key: key-team-a-0001, budget: {usd_per_day: 2}, rate: {requests_per_minute: 10}}
  - {name: free, key: key-free-000001}
providers:
  - {name: p, dialect: openai, base_url: "`+up.URL+`/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p], price: {input: 2.5, output: 10}}
`)
	url, _ := gatewaytest.Start(t, cfg, app.Options{})
	req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"model":"t","messages":[{"role":"user","content":"x"}]}`))
	req.Header.Set("Authorization", "Bearer key-team-a-0001")
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	m, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(m.Body)
	m.Body.Close()
	for _, want := range []string{
		`detour_client_limit_used{client="team-a",limit="usd_per_day"} 0.0125`,
		`detour_client_limit{client="team-a",limit="usd_per_day"} 2`,
		`detour_client_limit_used{client="team-a",limit="requests_per_minute"} 1`,
		`detour_client_limit{client="team-a",limit="requests_per_minute"} 10`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	if strings.Contains(string(b), `detour_client_limit_used{client="free"`) {
		t.Error("a key without limits has a limit gauge")
	}
}
