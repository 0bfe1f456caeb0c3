package process

// Operator review 53: a load balancer's health check on a gateway with
// admin_keys (docs/scale.md, "Load balancer"), and a client key's rotation.

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// docs/scale.md, "Load balancer": "Health check: `GET /v1/health` answers 200 while the process
// serves … After `SIGTERM` the listener is closed, so the check fails with *connection refused* and
// the balancer takes the replica out." docs/config.md (`admin_keys`) and security.md urge
// `admin_keys` on a shared gateway (without them every client reads every key's name, traffic,
// spend and the upstreams' error messages; `detour check` and `serve` warn). Observed with both
// set, as the docs lead an operator: an unauthenticated `GET /v1/health` (what a Kubernetes
// httpGet probe, an AWS ALB/NLB target-group check or HAProxy `option httpchk` sends) answers
// **401** (before round 53), so the balancer marked every replica unhealthy and took the whole fleet out; `/healthz`,
// `/livez`, `/readyz`, `/ping` are 404. No page of the docs says what a balancer should probe
// when `admin_keys` is set, and the only way to make the documented check pass is to hand the
// balancer the operator's admin key (which opens the console and `/v1/health/reset`); an ALB
// cannot send a header at all. Expected: a liveness answer without credentials (the status only —
// `{"status":"serving"}` — never endpoints, accounts or upstream messages), on `/v1/health` or on
// a documented path.
func TestOp53LoadBalancerHealthCheckPassesWithAdminKeys(t *testing.T) {
	up := fake(t, ok("gpt-4o"))
	g := startGateway(t, "op53lb", render(`
admin_keys: [adm-op53-0123456789abcdef]
client_keys:
  - {name: team-a, key: sk-op53-team-a-0123456789, routes: [gpt]}
providers:
  - {name: openai, dialect: openai, base_url: "{up}/v1", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai]}
`, map[string]string{"up": up.URL}))
	resp, err := http.Get(g.URL + "/v1/health") // what a balancer's health check sends: no credentials
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("docs/scale.md's load-balancer health check (GET /v1/health, no credentials) with admin_keys set: %d %s; "+
			"every replica looks down to the balancer", resp.StatusCode, b)
	}
	var h map[string]any
	_ = json.Unmarshal(b, &h)
	if h["status"] != "serving" {
		t.Errorf("liveness answer without status serving: %s", b)
	}
	if _, leaks := h["endpoints"]; leaks {
		t.Errorf("an unauthenticated liveness answer carries what admin_keys protects: %s", b)
	}
}

// Before round 53 the docs' key rotation (docs/deploy.md, Reloading: "A rotated client or provider key applies to
// the next request; the old client key is refused from then on") was a hard cut: every developer
// of the team fails with 401 "missing or invalid client key" from the reload until they have the
// new key. A team's key held by several people, CI secrets and laptops cannot change in the same
// second, so an operator needs a window where old and new are both accepted for the same team.
// docs/config.md offers none: `key` is one value ("client key \"team-a\" key must be a single
// value, not a list"), a second entry with the same name is refused ("duplicate client key name
// \"team-a\" (first at line 4)"), and a second entry under another name (`team-a-next`) has its own
// counters (`detour:{client:NAME}:…`), so during the window the team has two budgets, two rates
// and two `max_concurrent` pools, and its spend splits between two names in the decision log,
// `detour usage` and the Keys page. No page says how to rotate a client key without an outage.
// Expected: one client key entry that accepts more than one secret (here written as a list, the
// shape the error message suggests; the lead picks the form), with one name and one budget.
func TestOp53ClientKeyRotationWithOverlapKeepsOneBudget(t *testing.T) {
	up := fake(t, ok("gpt-4o"))
	g := startGateway(t, "op53rot", render(`
log: {format: json}
client_keys:
  - {name: team-a, key: [sk-op53-old-0123456789, sk-op53-new-0123456789], routes: [gpt],
     budget: {usd_per_day: 1}}
providers:
  - {name: openai, dialect: openai, base_url: "{up}/v1", api_key: sk-test}
targets:
  - {name: gpt, model: gpt-4o, providers: [openai], price: {input: 1000000, output: 0}}
`, map[string]string{"up": up.URL}))
	if st, b := op53Post(t, g, "sk-op53-old-0123456789", "gpt"); st != 200 {
		t.Fatalf("old key during the rotation window: %d %s", st, b)
	}
	// The first request spent $5 of team-a's $1: the new key is the same team, so it is refused.
	if st, b := op53Post(t, g, "sk-op53-new-0123456789", "gpt"); st != 429 || !strings.Contains(b, "team-a") {
		t.Fatalf("new key of the same team after the team's budget is spent: %d %s", st, b)
	}
}
