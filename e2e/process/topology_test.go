package process

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/detour-llm/detour/internal/redistest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// deployment is a Redis deployment the replicas share: a single
// redis-server, a three-master Redis Cluster, or a primary managed by
// Sentinel (with a replica and three sentinels).
type deployment struct {
	// state is the value of the state section reaching it.
	state string
	// flush empties it between scenarios.
	flush func(t *testing.T)
	// kill crashes the node holding key (a cluster master, the Sentinel
	// primary); heal waits until Redis is whole again (the master restarted,
	// the replica promoted). nil for a single server.
	kill func(t *testing.T, key string)
	heal func(t *testing.T)
}

var topologies = []string{"single", "cluster", "sentinel"}

// stateTimeout is the replicas' state.timeout in the tests of shared state.
// The scenarios count outages, pages and write-backs: under the production
// bound (500ms) a loaded machine turned a slow answer (a cluster node
// fsyncing, a -race replica descheduled) into an outage, and each replica
// then served and paged on its own. A Redis that is down or cut off still
// fails at once (refused, closed), whatever the bound.
const stateTimeout = "timeout: 10s"

func quoted(urls []string) string {
	return `"` + strings.Join(urls, `", "`) + `"`
}

func startDeployment(t *testing.T, kind string) *deployment {
	t.Helper()
	switch kind {
	case "cluster":
		cl := redistest.StartCluster(t, 3)
		var killed *redistest.Server
		return &deployment{
			state: "{store: redis, cluster: [" + quoted(cl.URLs()) + "], " + stateTimeout + "}",
			flush: func(t *testing.T) {
				if err := cl.Client(t).ForEachMaster(context.Background(), func(ctx context.Context, c *redis.Client) error {
					return c.FlushAll(ctx).Err()
				}); err != nil {
					t.Fatal(err)
				}
			},
			kill: func(t *testing.T, key string) { killed = cl.MasterOf(t, key); killed.Kill() },
			heal: func(t *testing.T) { killed.Start(t); cl.WaitHealthy(t) },
		}
	case "sentinel":
		st := redistest.StartSentinel(t)
		return &deployment{
			state: "{store: redis, sentinel: {master: " + redistest.MasterName + ", addrs: [" + quoted(st.URLs()) + "]}, " + stateTimeout + "}",
			flush: func(t *testing.T) {
				if err := st.Client(t).FlushAll(context.Background()).Err(); err != nil {
					t.Fatal(err)
				}
			},
			kill: func(t *testing.T, _ string) { st.WaitReplicated(t); st.Primary.Kill() },
			heal: func(t *testing.T) { st.WaitPromoted(t) },
		}
	}
	rs := redistest.Start(t)
	return &deployment{
		state: `{store: redis, url: "` + rs.URL() + `", ` + stateTimeout + `}`,
		flush: func(t *testing.T) {
			if err := rs.Client(t).FlushAll(context.Background()).Err(); err != nil {
				t.Fatal(err)
			}
		},
	}
}

// TestSharedStateTopologies runs the shared-health scenarios on each
// topology, one deployment per topology: a gone model found by one replica
// is skipped by the other, one alert for two replicas, a single probe
// across replicas. On a cluster and behind Sentinel it then kills the node
// holding the state mid-test.
func TestSharedStateTopologies(t *testing.T) {
	t.Parallel()
	for _, kind := range topologies {
		t.Run(kind, func(t *testing.T) {
			t.Parallel()
			d := startDeployment(t, kind)
			for _, sc := range []struct {
				name string
				fn   func(t *testing.T, state string)
			}{
				{"gone model skipped by other replica", testGoneModelSkippedByOtherReplica},
				{"one alert for two replicas", testOneAlertForTwoReplicas},
				{"single probe", testSingleProbe},
				{"recovery posted once", testRecoveryPostedOnce},
			} {
				t.Run(sc.name, func(t *testing.T) {
					d.flush(t)
					sc.fn(t, d.state)
				})
			}
			if d.kill != nil {
				t.Run("node killed mid-test", func(t *testing.T) {
					d.flush(t)
					testNodeKilled(t, d)
				})
			}
		})
	}
}

// testNodeKilled: replica A finds grok gone and B sees it. The Redis node
// holding OpenRouter's keys is killed: both replicas keep answering, and A
// finds llama (also on OpenRouter) gone while the node is down. Once Redis
// is whole again — the master restarted, or the replica promoted, without
// restarting Detour — B knows both models are gone and skips llama without
// having seen it fail.
func testNodeKilled(t *testing.T, d *deployment) {
	gone := fake(t, upstreamtest.Step{Status: 404, Body: noEndpoints})
	backup := fake(t, ok("gpt-4o-mini"))
	body := render(`
state: {state}
providers:
  - {name: openrouter, dialect: openai, base_url: "{gone}", api_key: sk-or-test}
  - {name: openai, dialect: openai, base_url: "{backup}", api_key: sk-test}
targets:
  - {name: grok, model: "x-ai/grok-4-fast:free", providers: [openrouter]}
  - {name: llama, model: "meta-llama/llama-4:free", providers: [openrouter]}
  - {name: gpt, model: gpt-4o-mini, providers: [openai]}
routes:
  - {name: first, strategy: ordered, targets: [grok, gpt], fallback_on: [unavailable]}
  - {name: second, strategy: ordered, targets: [llama, gpt], fallback_on: [unavailable]}
`, map[string]string{"state": d.state, "gone": gone.URL, "backup": backup.URL})
	a, b := twoReplicas(t, body)
	a.postOK("first")
	if e := b.endpoint("grok", "openrouter"); e.State != "cooling" {
		t.Fatalf("B before the kill: grok/openrouter %+v, want cooling", e)
	}

	d.kill(t, "detour:{openrouter}:acct")
	r := a.postOK("second")
	wantAttempts(t, a.decision(r.Header.Get("X-Detour-Decision")), "llama/openrouter unavailable next_target", "gpt/openai ok done")
	for _, g := range []*gateway{a, b, a, b} { // both keep answering
		if r := g.postOK("first"); r.Header.Get("X-Detour-Target") != "gpt" {
			t.Fatalf("gateway %s while Redis is failing over answered through %q", g.name, r.Header.Get("X-Detour-Target"))
		}
	}
	d.heal(t)
	poll(t, 30*time.Second, "B to see both models A found gone, once Redis is whole", func() bool {
		a.health() // A writes back what it learned while the node was down
		return b.endpoint("grok", "openrouter").State == "cooling" && b.endpoint("llama", "openrouter").State == "cooling"
	})
	calls := gone.Calls()
	r = b.postOK("second")
	wantAttempts(t, b.decision(r.Header.Get("X-Detour-Decision")), "gpt/openai ok done")
	if gone.Calls() != calls {
		t.Errorf("B called the model A found gone while the node was down")
	}
}
