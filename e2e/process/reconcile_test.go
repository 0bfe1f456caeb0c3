package process

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// TestPartitionedReplicaFindingsReachTheFleet: replica A reaches Redis
// through a proxy, B directly. The proxy cuts A off (a partition: Redis is
// up, and B still shares through it); A finds a model gone on its own. When
// the partition heals, A writes what it learned back to Redis, and B skips
// that model without having seen it fail.
func TestPartitionedReplicaFindingsReachTheFleet(t *testing.T) {
	t.Parallel()
	rs := redistest.Start(t)
	cut := redistest.StartProxy(t, rs.Addr())
	gone := fake(t, upstreamtest.Step{Status: 404, Body: noEndpoints})
	backup := fake(t, ok("gpt-4o-mini"))
	body := `
log: {format: json}
providers:
  - {name: openrouter, dialect: openai, base_url: "{gone}", api_key: sk-or-test}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: grok, model: "x-ai/grok-4-fast:free", providers: [openrouter]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: cheap, strategy: ordered, targets: [grok, gpt], fallback_on: [unavailable]}
`
	vars := map[string]string{"gone": gone.URL, "backup": backup.URL}
	a := startGateway(t, "A", `state: {store: redis, url: "`+cut.URL()+`", `+stateTimeout+`}`+render(body, vars))
	b := startGateway(t, "B", `state: {store: redis, url: "`+rs.URL()+`", `+stateTimeout+`}`+render(body, vars))
	a.health() // A has reached Redis through the proxy

	cut.Cut()
	r := a.postOK("cheap")
	wantAttempts(t, a.decision(r.Header.Get("X-Detour-Decision")), "grok/openrouter unavailable next_target", "gpt/openai ok done")
	if n := len(a.logLines("redis unreachable")); n != 1 {
		t.Fatalf("A logged the partition %d times, want once:\n%s", n, a.stderr.String())
	}
	if e := b.endpoint("grok", "openrouter"); e.State != "healthy" {
		t.Fatalf("B cannot know what A learned while cut off: %+v", e)
	}

	cut.Heal()
	poll(t, 30*time.Second, "B to see the model A found gone while cut off", func() bool {
		a.health() // A's next store operation after its retry back-off writes back
		e := b.endpoint("grok", "openrouter")
		return e.State == "cooling" && e.LastClass == "unavailable"
	})
	calls := gone.Calls()
	r = b.postOK("cheap")
	wantAttempts(t, b.decision(r.Header.Get("X-Detour-Decision")), "gpt/openai ok done")
	if gone.Calls() != calls {
		t.Errorf("B called the model A found gone")
	}
	if len(a.logLines("wrote back")) != 1 || len(a.logLines("resumed sharing")) != 1 {
		t.Errorf("A's log after the partition healed: want one write-back line and one resume line:\n%s", a.stderr.String())
	}
}
