package process

// Operator review 53: a load balancer's health check on a gateway with
// admin_keys (docs/scale.md, "Load balancer").

import (
	"encoding/json"
	"io"
	"net/http"
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
