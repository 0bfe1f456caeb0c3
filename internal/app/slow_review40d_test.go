package app_test

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator sizing a fleet relies on what docs/scale.md says a slow
// Redis costs: the bound (state.timeout) is per operation, not per
// request, so a Redis that answers every command late but within it is
// paid on each of a request's round trips (two: the route's health, then
// the report that reads the account along; five before perf 41r), and the
// replica keeps sharing. As first written the page said a slow Redis cost
// a request "at most" the bound.
func TestReview40dASlowRedisIsPaidOnEveryRoundTrip(t *testing.T) {
	const late = 80 * time.Millisecond // well within the 500ms bound
	srv := redistest.Start(t)
	slow := redistest.StartProxy(t, srv.Addr())
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Body: upstreamtest.ChatJSON("m", "hi")}))
	t.Cleanup(up.Close)
	cfg := gatewaytest.Config(t, `state: {store: redis, url: "`+slow.URL()+`"}
providers:
  - {name: p, dialect: openai, base_url: "`+up.URL+`/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`)
	var log testutil.Buffer
	url, _ := gatewaytest.Start(t, cfg, app.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	do := func() time.Duration {
		start := time.Now()
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"t","messages":[{"role":"user","content":"x"}]}`))
		if err != nil {
			t.Fatal(err)
		}
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d", resp.StatusCode)
		}
		return time.Since(start)
	}
	do() // connected, Redis's clock measured
	slow.Slow(late)
	for range 3 {
		if d := do(); d < 2*late {
			t.Errorf("a request through a Redis %v late took %v, want at least two round trips (%v)", late, d, 2*late)
		}
	}
	if n := log.Count("redis unreachable"); n != 0 {
		t.Errorf("a Redis %v late, within the 500ms bound, put the replica on local state:\n%s", late, log.String())
	}
}
