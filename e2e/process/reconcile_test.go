package process

import (
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
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
	f := newGoneFleet(t)
	body := "\nlog: {format: json}\n" + f.yaml(`
routes:
  - {name: cheap, strategy: ordered, targets: [grok, gpt], fallback_on: [unavailable]}
`)
	a := startGateway(t, "A", `state: {store: redis, url: "`+cut.URL()+`", `+stateTimeout+`}`+body)
	b := startGateway(t, "B", `state: {store: redis, url: "`+rs.URL()+`", `+stateTimeout+`}`+body)
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
	calls := f.gone.Calls()
	r = b.postOK("cheap")
	wantAttempts(t, b.decision(r.Header.Get("X-Detour-Decision")), "gpt/openai ok done")
	if f.gone.Calls() != calls {
		t.Errorf("B called the model A found gone")
	}
	if len(a.logLines("wrote back")) != 1 || len(a.logLines("resumed sharing")) != 1 {
		t.Errorf("A's log after the partition healed: want one write-back line and one resume line:\n%s", a.stderr.String())
	}
}
