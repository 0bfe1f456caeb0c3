package app_test

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/redistest"
)

// Operator review 52: a managed Redis in cluster mode hands out one
// endpoint, and an operator who writes it as state.url got a gateway
// whose every command for a key on another master was refused (MOVED),
// each replica counting health and budgets alone, while /v1/health and
// detour_state_shared said shared. It is refused at start, naming
// state.cluster.
func TestClusterNodeAsStateURLIsRefused(t *testing.T) {
	c := redistest.StartCluster(t, 3)
	cfg := gatewaytest.Config(t, `state: {store: redis, url: "redis://`+c.Nodes[0].Addr()+`/0"}
providers:
  - {name: p, dialect: openai, base_url: "http://127.0.0.1:9/v1", api_key: sk-test}
targets:
  - {name: t, model: m, providers: [p]}
`)
	a, err := app.New(cfg, app.Options{})
	if err == nil {
		a.Close(t.Context())
		t.Fatal("a cluster node as state.url: started, sharing nothing")
	}
	if !strings.Contains(err.Error(), "state.cluster") {
		t.Errorf("error %q does not say to use state.cluster", err)
	}
}
