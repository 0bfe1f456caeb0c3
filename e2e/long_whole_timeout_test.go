package e2e

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// longAsk marks the requests a fake below answers slowly: a client asking
// for a long whole answer.
const longAsk = `,"max_tokens":32000`

// A whole (non-stream) answer's headers come once the model has written
// all of it, so a client that asks for answers longer than the provider's
// `timeout` makes its own requests time out. Nothing a client sends may
// cool a provider for everyone: while the endpoint answers other requests,
// such a timeout walks on but counts against nobody (one answer excuses
// one timeout). Alone on the endpoint, it still counts (a provider that
// hangs every request must cool).
func TestLongWholeAnswerTimeoutCoolsNothingWhileOthersAreServed(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"oai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte(`"max_tokens":32000`)) {
			return upstreamtest.Step{Delay: 3 * time.Second, Body: upstreamtest.ChatJSON("gpt-4o", "a very long essay")}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("gpt-4o", "Hello.")}
	}})
	g := start(t, `
health: {failure_threshold: 2, cooldown: 1m}
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test-long-0001, timeout: 1s}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
`, fs)
	endpoint := func() (string, int) {
		e, _ := g.health(t).Endpoint("t", "oai")
		return e.State, e.Failures
	}

	// Two long answers at once, and other clients served meanwhile (well
	// inside the long answers' 1 s timeout, however busy the machine).
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); g.post(t, "t", longAsk) }()
	}
	time.Sleep(150 * time.Millisecond)
	g.post(t, "t", "").wantStatus(t, 200)
	g.post(t, "t", "").wantStatus(t, 200)
	wg.Wait()
	if state, failures := endpoint(); state != "healthy" || failures != 0 {
		t.Fatalf("after two long answers while others were served: %s with %d failures; want healthy, 0", state, failures)
	}
	timeouts := 0
	for i := 1; i <= 4; i++ {
		for _, a := range g.recs.wait(t, i).Attempts {
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
	g.post(t, "t", longAsk)
	g.post(t, "t", longAsk)
	if state, failures := endpoint(); state != "cooling" {
		t.Fatalf("after two timeouts with nothing else served: %s with %d failures; want cooling", state, failures)
	}
}

// An operator of a fastest route relies on latency_ms to rank targets by
// how soon they answer. A whole answer's first byte comes once all of it
// is written, so a client's long non-stream answers must not make a
// target whose streams answer at once look slow.
func TestLongWholeAnswersDoNotMakeAStreamingTargetLookSlow(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"oai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{Events: upstreamtest.ChatStream("gpt-4o", "Hel", "lo.")}
		}
		return upstreamtest.Step{Delay: 700 * time.Millisecond, Body: upstreamtest.ChatJSON("gpt-4o", "a long essay")}
	}})
	g := start(t, `
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test-whole-0001}
targets:
  - {name: t, model: gpt-4o, providers: [oai]}
routes:
  - {name: fast, strategy: fastest, targets: [t]}
`, fs)
	g.post(t, "fast", `,"stream":true`).wantStatus(t, 200)
	for range 3 {
		g.post(t, "fast", longAsk).wantStatus(t, 200)
	}
	e, _ := g.health(t).Endpoint("t", "oai")
	if e.LatencyMS == nil {
		t.Fatal("no latency_ms after four successes")
	}
	if *e.LatencyMS >= 350 {
		t.Errorf("latency_ms %.0f after one fast stream and three 700 ms whole answers; want the stream's (well under 350)", *e.LatencyMS)
	}
}
