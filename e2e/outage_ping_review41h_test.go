package e2e

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator relies on an endpoint that hangs its clients' whole answers
// to cool after failure_threshold timeouts, so that requests go straight
// to the next target instead of each waiting `timeout`. A monitor's tiny
// request that the endpoint still answers must not hide that outage.
func TestHungEndpointAnsweringAPingStillCools_review41h(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"oai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			if bytes.Contains(r.Body, []byte(`"max_tokens":1`)) { // the monitor's ping
				return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "pong")}
			}
			return upstreamtest.Step{Delay: 2 * time.Second, Body: upstreamtest.ChatJSON("gpt-4o", "late")}
		},
		"alt": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")}
		},
	})
	g := start(t, `
health: {failure_threshold: 2, cooldown: 1m}
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test-ping-0001, timeout: 400ms}
  - {name: alt, dialect: openai, base_url: "{alt}", api_key: sk-test-ping-0002}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
  - {name: u, model: gpt-4o, providers: [alt]}
routes:
  - {name: r, strategy: ordered, targets: [t, u]}
`, fs)
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); g.post(t, "r", "").wantStatus(t, 200) }()
	}
	time.Sleep(150 * time.Millisecond)
	g.post(t, "t", `,"max_tokens":1`).wantStatus(t, 200)
	wg.Wait()
	e, _ := g.health(t).Endpoint("t", "oai")
	if e.State != "cooling" {
		t.Fatalf("an endpoint that hung four clients' answers and answered one ping: %s with %d failures; want cooling", e.State, e.Failures)
	}
}
