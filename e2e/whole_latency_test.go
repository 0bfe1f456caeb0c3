package e2e

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator of a fastest route relies on latency_ms to rank targets by
// how soon they answer. A whole answer's first byte comes once all of it
// is written, so a client's long non-stream answers must not make a
// target whose streams answer at once look slow.
func TestLongWholeAnswersDoNotMakeAStreamingTargetLookSlow(t *testing.T) {
	up := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", "Hel", "lo.")}
		}
		return upstreamtest.Step{Delay: 700 * time.Millisecond, Body: upstreamtest.ChatJSON("gpt-4o", "a long essay")}
	})
	t.Cleanup(up.Close)
	yaml := strings.ReplaceAll(`
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test-whole-0001}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
routes:
  - {name: fast, strategy: fastest, targets: [t]}
`, "{oai}", up.URL)
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{})
	post := func(stream bool) {
		b, _ := json.Marshal(map[string]any{"model": "fast", "stream": stream, "messages": []map[string]string{{"role": "user", "content": "hi"}}})
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("stream %v: %d", stream, resp.StatusCode)
		}
	}
	post(true)
	for range 3 {
		post(false)
	}
	resp, err := http.Get(url + "/v1/health")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var h struct {
		Endpoints []struct {
			LatencyMS *float64 `json:"latency_ms"`
		} `json:"endpoints"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || len(h.Endpoints) != 1 || h.Endpoints[0].LatencyMS == nil {
		t.Fatalf("health: %v %+v", err, h)
	}
	if ms := *h.Endpoints[0].LatencyMS; ms >= 350 {
		t.Errorf("latency_ms %.0f after one fast stream and three 700 ms whole answers; want the stream's (well under 350)", ms)
	}
}
