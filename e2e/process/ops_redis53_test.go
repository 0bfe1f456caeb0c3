package process

// Operator review 53: a Redis that came back empty gave every client key
// its budget back, silently (docs/scale.md, "A Redis that comes back
// empty"). The test failed before round 53.

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/redistest"
)

// op53Post sends a chat request with a client key and returns the status and body.
func op53Post(t *testing.T, g *gateway, key, model string) (int, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", g.URL+"/v1/chat/completions",
		strings.NewReader(`{"model":"`+model+`","messages":[{"role":"user","content":"hi"}]}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// docs/config.md, `client_keys`: "With `redis` the counters live in Redis alone, so a Redis that
// keeps nothing across its own restart … gives every key its day back when it restarts: give it
// persistence (`appendonly yes`) where budgets matter." Observed live (replicas over
// `redis-server --save "" --appendonly no`, team-b refused at its $0.01/day): `redis-cli shutdown
// nosave` and a restart; team-b's next request was served (200) and
// `detour_client_limit_used{client="team-b",limit="usd_per_day"}` went from 0.010438 to 1.7e-05 —
// and neither replica logged one line: not at start (a Redis that persists nothing, with budgeted
// keys), not when the counters vanished (the restart was quicker than any request, so no "redis
// unreachable" either). The decision log, which holds the month's spend and from which a
// `state: memory` replica restores every budget at start, is not consulted. So a shared
// gateway's budgets silently reset with a Redis restart, a failover to an empty replica or an
// eviction (maxmemory-policy allkeys-*), and the operator learns it from the invoice. Expected at
// least a warning naming the budgeted keys (at start when Redis reports no persistence —
// `CONFIG GET appendonly`/`save` —, and when counters the replica knows it wrote are gone);
// better, the budgets restored from the decision log as with `state: memory`.
func TestOp53ARedisThatCameBackEmptyIsNotSilentAboutBudgets(t *testing.T) {
	rs := redistest.Start(t) // --save "" --appendonly no: persists nothing, like a default cache-only Redis
	up := fake(t, ok("gpt-4o"))
	a, b := twoReplicas(t, render(`
log: {format: json}
state: {store: redis, url: "{redis}", {timeout}}
client_keys:
  - {name: team-b, key: sk-op53-team-b-0123456789, routes: [gpt], budget: {usd_per_day: 1}}
providers:
  - {name: openai, dialect: openai, base_url: "{up}/v1", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 1000000, output: 0}}
`, map[string]string{"redis": rs.URL(), "timeout": stateTimeout, "up": up.URL}))
	if st, body := op53Post(t, a, "sk-op53-team-b-0123456789", "gpt"); st != 200 {
		t.Fatalf("first request: %d %s", st, body)
	}
	if st, body := op53Post(t, a, "sk-op53-team-b-0123456789", "gpt"); st != 429 {
		t.Fatalf("team-b spent $5 of its $1: want 429, got %d %s", st, body)
	}
	rs.Kill()
	rs.Start(t) // back at once, empty
	// Each replica reads Detour's marker in Redis every 5 s; the first to
	// find it gone says so, and each gives the budgets its own log's share.
	deadline := time.Now().Add(20 * time.Second)
	said := false
	for !said && time.Now().Before(deadline) {
		time.Sleep(250 * time.Millisecond)
		for _, g := range []*gateway{a, b} {
			for _, line := range strings.Split(g.stderr.String(), "\n") {
				if strings.Contains(line, `"level":"WARN"`) && strings.Contains(line, "Redis had lost these keys' spend") && strings.Contains(line, "team-b") {
					said = true
				}
			}
		}
	}
	if !said {
		t.Fatalf("Redis restarted empty and no replica said so in 20 s:\nA:\n%s\nB:\n%s", a.stderr.String(), b.stderr.String())
	}
	// Replica B (which holds no refusal of its own) reads the shared
	// counters: A's spend, restored from A's decision log, refuses team-b.
	if st, body := op53Post(t, b, "sk-op53-team-b-0123456789", "gpt"); st != 429 {
		t.Errorf("after Redis came back empty, team-b (over its $1 budget by $4) was served by replica B: %d %s", st, body)
	}
	// A Redis that persists nothing is named at start.
	if !strings.Contains(a.stderr.String(), "persists nothing") {
		t.Errorf("replica A did not warn that its Redis persists nothing:\n%s", a.stderr.String())
	}
}
