package e2e

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/testutil"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// An operator who fixed an account ends its cooldown with POST
// /v1/health/reset (docs/deploy.md, "Ending a cooldown"): the route's first
// target is tried first again at once, instead of after the hour a quota
// cools the account for. Operator review 48: only a restart did (with
// Redis, not even that). Only an admin key may reset; without admin_keys
// set, nobody may. With the memory store the reset is this replica's
// alone, and the answer says so (shared: false, as /v1/health).
func TestHealthResetEndsACooldown(t *testing.T) {
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(corpus(t, "openai-insufficient-quota-429"), ok("model-a", "a again")),
		"q":  script(ok("model-b", "b"), ok("model-b", "b")),
	})
	g := start(t, "admin_keys: [adm-reset-abcdefgh]\n"+oneEach, fs)
	g.post(t, "r", "").wantStatus(t, 200) // a/p1 quota: the account cools
	g.post(t, "r", "").wantStatus(t, 200) // b first: p1 cools
	if fs["p1"].Calls() != 1 || fs["q"].Calls() != 2 {
		t.Fatalf("before the reset: p1 %d calls, q %d", fs["p1"].Calls(), fs["q"].Calls())
	}
	admin := []string{"Authorization", "Bearer adm-reset-abcdefgh"}
	for _, c := range []struct {
		body    string
		headers []string
		status  int
	}{
		{`{"provider":"p1"}`, nil, 401},
		{`{"provider":"nope"}`, admin, 404},
		{`{"provider":"p1","target":"b"}`, admin, 404},
		{`{"provider":"p1","extra":1}`, admin, 400},
	} {
		if r := g.raw(t, http.MethodPost, "/v1/health/reset", c.body, c.headers...); r.Status != c.status {
			t.Errorf("%s: %d %s, want %d", c.body, r.Status, r.Body, c.status)
		}
	}
	r := g.raw(t, http.MethodPost, "/v1/health/reset", `{"provider":"p1"}`, admin...)
	if r.Status != 200 || !strings.Contains(string(r.Body), `"account":"p1"`) || !strings.Contains(string(r.Body), `"a/p1"`) || !strings.Contains(string(r.Body), `"shared":false`) {
		t.Fatalf("reset: %d %s", r.Status, r.Body)
	}
	g.post(t, "r", "").wantStatus(t, 200)
	if fs["p1"].Calls() != 2 {
		t.Errorf("after the reset the fixed account was not tried first: p1 %d calls", fs["p1"].Calls())
	}
	var h testutil.Health
	if err := json.Unmarshal(g.raw(t, http.MethodGet, "/v1/health", "", admin...).Body, &h); err != nil {
		t.Fatal(err)
	}
	for _, e := range h.Endpoints {
		if e.Provider == "p1" && e.State != "healthy" {
			t.Errorf("after the reset %s/%s is %s", e.Target, e.Provider, e.State)
		}
	}

	// Without admin_keys the operator endpoints are open: a reset there
	// would let any client un-cool a provider, so there is none.
	g2 := start(t, oneEach, fakes(t, map[string]upstreamtest.Script{"p1": script(), "q": script()}))
	if r := g2.raw(t, http.MethodPost, "/v1/health/reset", `{"provider":"p1"}`); r.Status != http.StatusForbidden {
		t.Errorf("without admin_keys: %d %s", r.Status, r.Body)
	}
}
