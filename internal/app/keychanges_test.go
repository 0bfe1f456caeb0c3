package app_test

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/testutil"
)

// Operator review 60: a reload logged "config reloaded routes=… targets=…"
// and nothing of what it did to client keys, and a key renamed (the same
// secret under a new name) silently started its budgets at the new name's
// spend (budgets, rates and records count by name). A reload now says, a
// line a key, what it added, removed or changed in the keys' limits, and
// warns when a secret moves to another name. Never the secret.
func TestReloadSaysWhatItDidToClientKeys(t *testing.T) {
	yaml := func(keys string) string {
		return "client_keys:\n" + keys + `providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p], price: {input: 1, output: 1}}
`
	}
	var logs testutil.Buffer
	_, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml(`  - {name: team-a, key: sk-team-a-000000001, budget: {usd_per_day: 5}}
  - {name: team-b, key: sk-team-b-000000001, rate: {requests_per_minute: 60}}
  - {name: team-c, key: sk-team-c-000000001}
  - {name: team-d, key: sk-team-d-000000001}
`)), app.Options{Logger: logs.Logger()})
	logs.Take()
	if err := a.Reload(gatewaytest.Config(t, yaml(`  - {name: team-alpha, key: sk-team-a-000000001, budget: {usd_per_day: 5}}
  - {name: team-b, key: sk-team-b-000000001, rate: {requests_per_minute: 30}, max_concurrent: 2}
  - {name: team-c, key: sk-team-c-000000001, budget: {usd_per_month: 100}}
  - {name: team-e, key: sk-team-e-000000001}
`))); err != nil {
		t.Fatal(err)
	}
	got := logs.Take()
	for _, want := range []string{
		"from=team-a to=team-alpha", // the rename, warned
		"client=team-b from=\"requests_per_minute 60\" to=\"requests_per_minute 30, max_concurrent 2\"",
		"client=team-c from=none to=\"usd_per_month 100\"",
		"client key removed by this reload\" client=team-d",
		"client key added by this reload\" client=team-e limits=none",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the reload's log lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(got, "sk-team-") {
		t.Errorf("a secret in the log:\n%s", got)
	}
}

// Review 60b: a secret that moves while both names stay (two teams' keys
// swapped in an edit, or one team's secret given to a new name while the
// old name gets a new one) was not warned: each team then spent against
// the other's budget, or started at nothing.
func TestReloadWarnsOfEverySecretThatChangesName(t *testing.T) {
	yaml := func(keys string) string {
		return "client_keys:\n" + keys + `providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p], price: {input: 1, output: 1}}
`
	}
	for name, c := range map[string]struct{ before, after, want string }{
		"swapped": {`  - {name: team-a, key: sk-team-a-000000001, budget: {usd_per_day: 5}}
  - {name: team-b, key: sk-team-b-000000001, budget: {usd_per_day: 500}}
`, `  - {name: team-a, key: sk-team-b-000000001, budget: {usd_per_day: 5}}
  - {name: team-b, key: sk-team-a-000000001, budget: {usd_per_day: 500}}
`, "from=team-a to=team-b"},
		"moved, the old name kept": {`  - {name: team-a, key: sk-team-a-000000001, budget: {usd_per_day: 5}}
`, `  - {name: team-a, key: sk-team-a-000000002, budget: {usd_per_day: 5}}
  - {name: team-x, key: sk-team-a-000000001, budget: {usd_per_day: 5}}
`, "from=team-a to=team-x"},
	} {
		t.Run(name, func(t *testing.T) {
			var logs testutil.Buffer
			_, a := gatewaytest.Start(t, gatewaytest.Config(t, yaml(c.before)), app.Options{Logger: logs.Logger()})
			logs.Take()
			if err := a.Reload(gatewaytest.Config(t, yaml(c.after))); err != nil {
				t.Fatal(err)
			}
			got := logs.Take()
			if !strings.Contains(got, "level=WARN") || !strings.Contains(got, c.want) {
				t.Errorf("no warning %s; the reload logged:\n%s", c.want, got)
			}
			if strings.Contains(got, "sk-team-") {
				t.Errorf("a secret in the log:\n%s", got)
			}
		})
	}
}
