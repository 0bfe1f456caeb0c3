package e2e

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 63a: review 62k's LiteLLM end-user throttle (its limiter quotes
// the client's "user" before its own "Limit type"). 62k narrowed the
// sub2api "monthly … limit" phrase to whole words; its twin "daily …
// limit" (gap 24, phrasesaccount.go) keeps the gap, so an end-user id
// "daily" (or "team-daily", "daily-digest") beside LiteLLM's own "Limit
// type" read as a day's quota: the relay's account cooled and the operator
// was paged, for every client, on one client's per-minute throttle. Since
// round 63 a phrase's first part inside a value the upstream writes after
// a label ("end_user: daily.") that is a whole string of the request is the
// client's (classify labelled).
func TestReview63aDailyEndUserIsNoQuota(t *testing.T) {
	litellm := func(_ int, r upstreamtest.Request) upstreamtest.Step {
		var req struct {
			User string `json:"user"`
		}
		_ = json.Unmarshal(r.Body, &req)
		return upstreamtest.Step{Status: 429, Header: map[string]string{"Retry-After": "30"},
			Body: `{"error":{"message":"Rate limit exceeded for end_user: ` + req.User + `. Limit type: requests. Current limit: 2, Remaining: 0. Limit resets at: 2026-12-07 08:31:00 UTC","type":"None","param":"None","code":"429"}}`}
	}
	for _, user := range []string{"monthly" /* 62k's, the control */, "daily", "team-daily", "usage limit", "daily-digest"} {
		t.Run(user, func(t *testing.T) {
			fs := fakes(t, map[string]upstreamtest.Script{"p": litellm, "q": script(ok("model-b", "fine"))})
			g := start(t, review63aCodeCfg, fs)
			r := g.post(t, "r", `,"user":"`+user+`"`, "Authorization", "Bearer client-key-1")
			d := g.recs.wait(t, 1)
			acct, _ := g.health(t).Account("p")
			t.Logf("status %d; steps %q; account p %s (%s)", r.Status, steps(d), acct.State, acct.CoolingClass)
			if len(d.Attempts) > 0 && (d.Attempts[0].Class == "quota" || d.Attempts[0].Class == "auth") {
				t.Errorf("end user %q's per-minute throttle read %s (%s): account p %s", user, d.Attempts[0].Class, d.Attempts[0].Evidence, acct.State)
			}
		})
	}
}
