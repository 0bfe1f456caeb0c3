package e2e

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A whole (non-stream) answer's headers come once the model has written
// all of it, so a client that asks for answers longer than the provider's
// `timeout` makes its own requests time out. Nothing a client sends may
// cool a provider for everyone: while the endpoint answers other requests,
// such a timeout walks on but counts against nobody. Alone on the
// endpoint, it still counts (a provider that hangs every request must cool).
func TestLongWholeAnswerTimeoutCoolsNothingWhileOthersAreServed(t *testing.T) {
	up := upstreamtest.New(func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte("write a very long essay")) {
			return upstreamtest.Step{Delay: 2 * time.Second, Body: upstreamtest.ChatJSON("gpt-4o", "a very long essay")}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")}
	})
	t.Cleanup(up.Close)
	yaml := strings.ReplaceAll(`
health: {failure_threshold: 2, cooldown: 1m}
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test-long-0001, timeout: 400ms}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
`, "{oai}", up.URL)
	recs := gatewaytest.NewRecords()
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{Decisions: recs})
	post := func(content string) int {
		b, _ := json.Marshal(map[string]any{"model": "t", "messages": []map[string]string{{"role": "user", "content": content}}})
		resp, err := http.Post(url+"/v1/chat/completions", "application/json", bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	endpoint := func() (state string, failures int) {
		resp, err := http.Get(url + "/v1/health")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var h struct {
			Endpoints []struct {
				State    string `json:"state"`
				Failures int    `json:"failures"`
			} `json:"endpoints"`
		}
		if err := json.NewDecoder(resp.Body).Decode(&h); err != nil || len(h.Endpoints) != 1 {
			t.Fatalf("health: %v %+v", err, h)
		}
		return h.Endpoints[0].State, h.Endpoints[0].Failures
	}

	// Two long answers at once, and other clients served meanwhile.
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); post("write a very long essay") }()
	}
	time.Sleep(150 * time.Millisecond)
	if code := post("hi"); code != 200 {
		t.Fatalf("a short request: %d", code)
	}
	wg.Wait()
	if state, failures := endpoint(); state != "healthy" || failures != 0 {
		t.Fatalf("after two long answers while others were served: %s with %d failures; want healthy, 0", state, failures)
	}
	timeouts := 0
	for i := 1; i <= 3; i++ {
		for _, a := range recs.Wait(t, i).Attempts {
			if a.Class != "timeout" {
				continue
			}
			timeouts++
			if a.Counted || !strings.Contains(a.Evidence, "timeout:headers") {
				t.Errorf("long answer's attempt: counted %v, evidence %q; want not counted, timeout:headers", a.Counted, a.Evidence)
			}
		}
	}
	if timeouts != 2 {
		t.Fatalf("%d timeouts recorded, want 2", timeouts)
	}

	// Alone on the endpoint, timeouts count: two in a row cool it.
	post("write a very long essay")
	post("write a very long essay")
	if state, failures := endpoint(); state != "cooling" {
		t.Fatalf("after two timeouts with nothing else served: %s with %d failures; want cooling", state, failures)
	}
}
