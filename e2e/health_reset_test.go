package e2e

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

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

// A reset is the operator saying "I fixed it": when the account fails the
// same way again, the operator is paged again, not held back by the hour
// of de-duplication the first page began (operator review 50b: a key
// rotated by reload, then a reset, both still refused, and nothing paged).
func TestHealthResetRearmsTheAlert(t *testing.T) {
	h := newHook(t)
	quota := corpus(t, "openai-insufficient-quota-429")
	fs := fakes(t, map[string]upstreamtest.Script{
		"p1": script(quota, quota, quota),
		"q":  script(ok("model-b", "b"), ok("model-b", "b"), ok("model-b", "b")),
	})
	g := start(t, "admin_keys: [adm-reset-abcdefgh]\nalerts: {webhook: \""+h.URL+"\", min_interval: 1h}\n"+oneEach, fs)
	waitAlerts := func(n int) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second) // a failure guard
		for len(h.alerts()) < n && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if got := len(h.alerts()); got != n {
			t.Fatalf("%d alerts, want %d", got, n)
		}
	}
	g.post(t, "r", "").wantStatus(t, 200) // a/p1 quota: paged once
	waitAlerts(1)
	// The page quotes the provider: "quota" alone does not tell a spent
	// balance from one model's daily allowance (operator review 50b).
	if a := h.alerts()[0]; !strings.Contains(fmt.Sprint(a["message"]), "You exceeded your current quota") ||
		!strings.Contains(fmt.Sprint(a["text"]), "You exceeded your current quota") {
		t.Errorf("the page does not quote the provider: %v", a)
	}
	// It says when the account is tried again (account_cooldown, an hour
	// by default, from now) and how to end that sooner (operator review
	// 55: the page said neither, and a top-up alone changes nothing).
	again, err := time.Parse(time.RFC3339, fmt.Sprint(h.alerts()[0]["tried_again"]))
	if err != nil || again.Before(time.Now().Add(55*time.Minute)) || again.After(time.Now().Add(61*time.Minute)) ||
		!strings.Contains(fmt.Sprint(h.alerts()[0]["text"]), "POST /v1/health/reset") {
		t.Errorf("the page does not say when the account is tried again, or how to end it sooner: %v", h.alerts()[0])
	}
	if r := g.raw(t, http.MethodPost, "/v1/health/reset", `{"provider":"p1"}`, "Authorization", "Bearer adm-reset-abcdefgh"); r.Status != 200 {
		t.Fatalf("reset: %d %s", r.Status, r.Body)
	}
	g.post(t, "r", "").wantStatus(t, 200) // still out of credit: paged again
	waitAlerts(2)
	g.post(t, "r", "").wantStatus(t, 200) // the account cools: no third request reaches it, no third page
	time.Sleep(50 * time.Millisecond)
	if got := len(h.alerts()); got != 2 {
		t.Errorf("%d alerts after the account cooled again, want 2", got)
	}
}
