package e2e

import (
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestHostile57bOneClientsReasoningCannotDemoteFastest: since round 57
// `fastest` ranks a stream by its time to first content. That time is the
// model's prefill and, for a reasoning model, its whole hidden reasoning,
// which the client's own request decides (OpenAI: reasoning tokens are not
// streamed in Chat Completions; `reasoning_effort` high reasons longer:
// https://platform.openai.com/docs/guides/reasoning). Two OpenAI-compatible
// providers (upstreamtest.ChatStream's documented chunk shape): alpha's first
// content comes at ~40 ms for every ordinary request, beta's at ~300 ms.
// One client sends one stream with "reasoning_effort":"high", which alpha
// reasons over for ~2 s before its first content. Before the fix every
// other client's next stream was then sent to beta, 7x slower for them: one
// client's request shape ranked the endpoint for everybody (and, with a
// shared store, for every replica). One sample now raises the latency by
// at most four times what it was (internal/health, sampleStep).
func TestHostile57bOneClientsReasoningCannotDemoteFastest(t *testing.T) {
	alpha := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		st := okStream("alpha-large", "Hel", "lo")
		st.EventDelay = 20 * time.Millisecond
		if strings.Contains(string(r.Body), `"reasoning_effort":"high"`) {
			st.EventDelay = time.Second // role chunk at 1 s, first content at 2 s
		}
		return st
	}
	beta := func(_ int, _ upstreamtest.Request) upstreamtest.Step {
		st := okStream("beta-large", "Hel", "lo")
		st.EventDelay = 150 * time.Millisecond
		return st
	}
	fs := fakes(t, map[string]upstreamtest.Script{"alpha": alpha, "beta": beta})
	g := start(t, `
providers:
  - {name: alpha, dialect: openai, base_url: "{alpha}", api_key: sk-test-alpha}
  - {name: beta, dialect: openai, base_url: "{beta}", api_key: sk-test-beta}
targets:
  - {name: a, model: alpha-large, providers: [alpha]}
  - {name: b, model: beta-large, providers: [beta]}
routes:
  - {name: live, strategy: fastest, targets: [a, b]}
`, fs)
	served := func(extra string) string {
		t.Helper()
		r := g.post(t, "live", `,"stream":true`+extra)
		r.wantStatus(t, 200)
		if strings.Contains(string(r.Body), "alpha-large") {
			return "alpha"
		}
		return "beta"
	}
	// Both measured (never-measured targets go first), then alpha ranks first.
	for i := 0; i < 4; i++ {
		served("")
	}
	if got := served(""); got != "alpha" {
		t.Fatalf("before: an ordinary stream went to %s; want alpha (first content ~40 ms vs ~300 ms)", got)
	}
	// One client's one request with a long hidden reasoning.
	if got := served(`,"reasoning_effort":"high"`); got != "alpha" {
		t.Fatalf("the reasoning request went to %s", got)
	}
	// Other clients' ordinary streams: alpha still answers them in ~40 ms.
	var to []string
	for i := 0; i < 3; i++ {
		to = append(to, served(""))
	}
	t.Logf("after one client's reasoning_effort:high stream, the next three ordinary streams went to %v (alpha calls %d, beta calls %d)", to, fs["alpha"].Calls(), fs["beta"].Calls())
	if to[0] != "alpha" {
		t.Errorf("one client's reasoning_effort:high stream moved every client's ordinary streams to beta (7x slower first content): %v; its first token measures the client's request, not the endpoint", to)
	}
}
