package e2e

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// thinkHard marks the streams a fake below begins late: a reasoning model
// that streams none of its thinking, asked a hard question at high effort.
const thinkHard = `,"stream":true,"reasoning_effort":"high"`

// A reasoning model that streams none of its thinking sends its first
// token only once it has thought, so a client's hard prompts make its own
// streams outlive first_token_timeout. Nothing a client sends may cool a
// provider for everyone: while the endpoint serves other requests, such a
// timeout walks on but counts against nobody (one request served excuses
// one timeout), as a long whole answer's does. Alone on the endpoint it
// still counts (a provider that never starts its streams must cool).
func TestLongThinkingStreamTimeoutCoolsNothingWhileOthersAreServed(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{"oai": func(_ int, r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte(`"reasoning_effort":"high"`)) {
			return upstreamtest.Step{EventDelay: 3 * time.Second, Events: upstreamtest.ChatStream("o3", "Thought ", "long.")}
		}
		return upstreamtest.Step{Events: upstreamtest.ChatStream("o3", "Hel", "lo.")}
	}})
	g := start(t, `
health: {failure_threshold: 2, cooldown: 1m}
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test-think-0001, first_token_timeout: 1s}
targets:
  - {name: t, model: o3, providers: [oai]}
`, fs)
	endpoint := func() (string, int) {
		e, _ := g.health(t).Endpoint("t", "oai")
		return e.State, e.Failures
	}

	// Two hard prompts at once, and other clients' streams served meanwhile
	// (well inside the hard prompts' 1 s first-token timeout).
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); g.post(t, "t", thinkHard) }()
	}
	time.Sleep(150 * time.Millisecond)
	g.post(t, "t", `,"stream":true`).wantStatus(t, 200)
	g.post(t, "t", `,"stream":true`).wantStatus(t, 200)
	wg.Wait()
	if state, failures := endpoint(); state != "healthy" || failures != 0 {
		t.Fatalf("after two long-thinking streams while others were served: %s with %d failures; want healthy, 0", state, failures)
	}
	timeouts := 0
	for i := 1; i <= 4; i++ {
		for _, a := range g.recs.wait(t, i).Attempts {
			if a.Class != "timeout" {
				continue
			}
			timeouts++
			if a.Counted || !strings.Contains(a.Evidence, "timeout:first_token") {
				t.Errorf("long-thinking attempt: counted %v, evidence %q; want not counted, timeout:first_token", a.Counted, a.Evidence)
			}
		}
	}
	if timeouts != 2 {
		t.Fatalf("%d timeouts recorded, want 2", timeouts)
	}

	// Alone on the endpoint, they count: two in a row cool it.
	g.post(t, "t", thinkHard)
	g.post(t, "t", thinkHard)
	if state, failures := endpoint(); state != "cooling" {
		t.Fatalf("after two first-token timeouts with nothing else served: %s with %d failures; want cooling", state, failures)
	}
}

// An endpoint that never begins most of its streams still cools: one
// stream it did begin (a monitor's) excuses one of their timeouts, not
// all of them (as for whole answers, review 41h).
func TestStreamsHungBeforeTheirFirstTokenStillCool(t *testing.T) {
	g := hungStreams(t, func(r upstreamtest.Request) upstreamtest.Step {
		if bytes.Contains(r.Body, []byte(`"max_tokens":1`)) { // the monitor's ping
			return upstreamtest.Step{Events: upstreamtest.ChatStream("o3", "pong")}
		}
		return upstreamtest.Step{EventDelay: 2 * time.Second, Events: upstreamtest.ChatStream("o3", "late")}
	})
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() { defer wg.Done(); g.post(t, "r", `,"stream":true`).wantStatus(t, 200) }()
	}
	time.Sleep(150 * time.Millisecond)
	g.post(t, "t", `,"stream":true,"max_tokens":1`).wantStatus(t, 200)
	wg.Wait()
	if e, _ := g.health(t).Endpoint("t", "oai"); e.State != "cooling" {
		t.Fatalf("an endpoint that began none of four clients' streams and one ping: %s with %d failures; want cooling", e.State, e.Failures)
	}
}

// An endpoint whose streams never begin while its whole answers work (a
// broken streaming path) still cools: a whole answer proves nothing of its
// streams, so only another stream's first content excuses a stream's
// first-token timeout (review 43g).
func TestWholeAnswersDoNotExcuseHungStreams(t *testing.T) {
	g := hungStreams(t, func(r upstreamtest.Request) upstreamtest.Step {
		if r.Streamed() {
			return upstreamtest.Step{EventDelay: 2 * time.Second, Events: upstreamtest.ChatStream("o3", "late")}
		}
		return upstreamtest.Step{Body: upstreamtest.ChatJSON("o3", "whole")}
	})
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() { defer wg.Done(); g.post(t, "r", `,"stream":true`).wantStatus(t, 200) }()
	}
	time.Sleep(150 * time.Millisecond)
	g.post(t, "t", "").wantStatus(t, 200)
	g.post(t, "t", "").wantStatus(t, 200)
	wg.Wait()
	if e, _ := g.health(t).Endpoint("t", "oai"); e.State != "cooling" {
		t.Fatalf("an endpoint whose two streams hung while it gave two whole answers: %s with %d failures; want cooling", e.State, e.Failures)
	}
}

// hungStreams starts a gateway whose route r tries t (provider oai, which
// answers as oai says, first_token_timeout 400ms) then u (provider alt,
// which streams at once); two timeouts in a row cool an endpoint for a
// minute.
func hungStreams(t *testing.T, oai func(upstreamtest.Request) upstreamtest.Step) *gateway {
	fs := fakes(t, map[string]upstreamtest.Script{
		"oai": func(_ int, r upstreamtest.Request) upstreamtest.Step { return oai(r) },
		"alt": func(_ int, r upstreamtest.Request) upstreamtest.Step {
			return upstreamtest.Step{Events: upstreamtest.ChatStream("o3", "Hello.")}
		},
	})
	return start(t, `
health: {failure_threshold: 2, cooldown: 1m}
providers:
  - {name: oai, dialect: openai, base_url: "{oai}", api_key: sk-test-hung-0001, first_token_timeout: 400ms}
  - {name: alt, dialect: openai, base_url: "{alt}", api_key: sk-test-hung-0002}
targets:
  - {name: t, model: o3, providers: [oai]}
  - {name: u, model: o3, providers: [alt]}
routes:
  - {name: r, strategy: ordered, targets: [t, u]}
`, fs)
}
