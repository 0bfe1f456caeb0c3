package app_test

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 65h: providers, routes, client keys and rules now carry the line
// they begin at (for `detour check`'s file:line). A reload of a file in
// which only lines moved (a comment added at the top) changes nothing:
// the endpoint a 401 cooled stays cooling (its key is not new), no line
// says a key was added, removed or changed, and a key's day's spend is
// kept (its budget still refuses).
func TestReview65hReloadThatOnlyMovesLinesChangesNothing(t *testing.T) {
	up := upstreamtest.New(upstreamtest.Steps(
		upstreamtest.Step{Status: 200, Body: `{"id":"c","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1000000,"completion_tokens":1,"total_tokens":1000001}}`},
		upstreamtest.Step{Status: 500, Body: `{"error":{"message":"boom","type":"server_error"}}`},
	))
	t.Cleanup(up.Close)
	dec := filepath.Join(t.TempDir(), "decisions.jsonl")
	yaml := func(pad string) string {
		return pad + `decisions: {path: "` + dec + `"}
client_keys:
  - {name: team, key: sk-team-review65h-0001, budget: {usd_per_day: 1}}
  - {name: free, key: sk-free-review65h-0001}
health: {failure_threshold: 1}
classify:
  rules:
    - {status: [418], class: rate_limited}
providers:
  - {name: p, dialect: openai, base_url: "` + up.URL + `", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p], price: {input: 5, output: 5}}
routes:
  - {name: r, targets: [t]}
`
	}
	var logs testutil.Buffer
	url, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml("")), app.Options{Logger: logs.Logger()})
	post := func(key string) int {
		req, _ := http.NewRequest(http.MethodPost, url+"/v1/chat/completions", strings.NewReader(`{"model":"r","messages":[{"role":"user","content":"hi"}]}`))
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := post("sk-team-review65h-0001"); s != 200 { // $5 spent of a $1 day
		t.Fatalf("first: %d", s)
	}
	if s := post("sk-free-review65h-0001"); s != http.StatusBadGateway && s != http.StatusInternalServerError && s != http.StatusServiceUnavailable {
		t.Fatalf("second: %d, want the 500's failure", s)
	}
	health := func() string {
		resp, err := http.Get(url + "/v1/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h testutil.Health
		_ = json.NewDecoder(resp.Body).Decode(&h)
		e, _ := h.Endpoint("t", "p")
		return e.State + "/" + e.LastClass
	}
	before := health()
	if !strings.HasPrefix(before, "cooling") {
		t.Fatalf("the 500 left the endpoint %s", before)
	}
	logs.Take()
	old, moved := gatewaytest.Config(t, yaml("")), gatewaytest.Config(t, yaml("# a comment\n\n# and another\n"))
	if moved.Providers[0].Line == old.Providers[0].Line || moved.Clients[0].Line == old.Clients[0].Line || moved.Routes[0].Line == old.Routes[0].Line || moved.RuleLines[0] == old.RuleLines[0] {
		t.Fatal("the lines did not move")
	}
	if err := a.Reload(moved); err != nil {
		t.Fatal(err)
	}
	got := logs.Take()
	for _, bad := range []string{"changed", "added", "removed", "restart"} {
		if strings.Contains(got, bad) {
			t.Errorf("a reload that only moved lines logged %q:\n%s", bad, got)
		}
	}
	if after := health(); after != before {
		t.Errorf("health %s became %s", before, after)
	}
	if s := post("sk-team-review65h-0001"); s != http.StatusTooManyRequests {
		t.Errorf("after the reload: %d, want 429: the day's spend was forgotten", s)
	}
}
