package e2e

import (
	"bytes"
	"testing"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Review 32h. A per-model daily allowance (OpenAI's RPD "for gpt-4o-mini",
// Groq's TPD "for model …", Gemini's GenerateRequestsPerDayPerProjectPerModel)
// is filed quota and cools the whole account p. Since 67167a0 a success of
// ANOTHER model at p (target b, whose only provider is p, so it is still
// tried) closes the account: model-a's allowance is still spent, yet the next
// request for route r goes to a/p first again, meets the same quota answer
// (another page, another wasted attempt), and every success of b reopens it.
func TestAccountQuotaNotClosedByAnotherModelsSuccess_review32h(t *testing.T) {
	rpd := corpus(t, "openai-rate-limit-requests-per-day-rpd-try-again-minutes-429")
	fs := fakes(t, map[string]upstreamtest.Script{
		"p": func(n int, r upstreamtest.Request) upstreamtest.Step {
			if bytes.Contains(r.Body, []byte(`"model-a"`)) {
				return rpd
			}
			return ok("model-b", "from b")
		},
		"q": script(ok("model-c", "from c")),
	})
	g := start(t, `
health: {cooldown: 1s, max_cooldown: 1m, account_cooldown: 1h}
retry: {max_wait: 0s}
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: `+secret+`}
  - {name: q, dialect: openai, base_url: "{q}", api_key: `+secret+`}
targets:
  - {name: a, model: model-a, providers: [p]}
  - {name: b, model: model-b, providers: [p]}
  - {name: c, model: model-c, providers: [q]}
routes:
  - {name: r, targets: [a, c]}
`, fs)
	g.post(t, "r", "").wantStatus(t, 200)
	wantSteps(t, g.recs.wait(t, 1), "a/p quota next_target", "c/q ok done")
	if a, _ := g.health(t).Account("p"); a.State != "cooling" {
		t.Fatalf("account p is %s after model-a's daily allowance was spent", a.State)
	}

	// Another model at p serves (the account is cooling, but b has nowhere else).
	g.post(t, "b", "").wantStatus(t, 200)
	g.recs.wait(t, 2)
	if a, _ := g.health(t).Account("p"); a.State != "cooling" {
		t.Errorf("account p is %s after model-b (its own allowance) served: model-a's spent daily allowance was forgotten", a.State)
	}

	g.post(t, "r", "").wantStatus(t, 200)
	d := g.recs.wait(t, 3)
	if got := steps(d); len(got) > 0 && got[0] == "a/p quota next_target" {
		t.Errorf("the request after went to a/p first again and met the same spent allowance: %q", got)
	}
}
