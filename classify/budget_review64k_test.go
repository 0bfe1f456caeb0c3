package classify

import (
	"strings"
	"testing"
)

// Review 64k: LiteLLM's end-user budget answers, every wording its source
// has (litellm/proxy/auth/auth_checks.py, common_checks step 5;
// proxy/hooks/model_max_budget_limiter.py, is_end_user_within_model_budget),
// with the ids real clients send as "user".
func TestReview64kLiteLLMEndUserBudget(t *testing.T) {
	sha := strings.Repeat("9f2c4e1a", 8) // a SHA-256 hex digest: OpenAI's docs ask for a hashed user id
	for _, c := range []struct {
		name, user, body string
		status           int
	}{
		{"docs' 401", "ishaan3", `{"error":{"message":"ExceededBudget: End User=ishaan3 over budget. Spend=0.0008869999999999999, Budget=0.0001","type":"auth_error","param":"None","code":401}}`, 401},
		{"429 budget_exceeded, email", "proxytest@example.com", `{"error":{"message":"ExceededBudget: End User=proxytest@example.com over budget. Spend=6.8e-06, Budget=4e-06","type":"budget_exceeded","param":null,"code":"429"}}`, 429},
		{"401, a SHA-256 id", sha, `{"error":{"message":"ExceededBudget: End User=` + sha + ` over budget. Spend=0.2, Budget=0.1","type":"auth_error","param":"None","code":401}}`, 401},
		{"429, a SHA-256 id", sha, `{"error":{"message":"ExceededBudget: End User=` + sha + ` over budget. Spend=0.2, Budget=0.1","type":"budget_exceeded","param":null,"code":"429"}}`, 429},
		{"400, a SHA-256 id", sha, `{"error":{"message":"ExceededBudget: End User=` + sha + ` over budget. Spend=0.2, Budget=0.1","type":"budget_exceeded","param":null,"code":"400"}}`, 400},
		{"401, a user id with a blank and a '?'", "who? me", `{"error":{"message":"ExceededBudget: End User=who? me over budget. Spend=0.2, Budget=0.1","type":"auth_error","param":"None","code":401}}`, 401},
		{"per-model end-user budget, 400", "e1", `{"error":{"message":"LiteLLM End User: e1, exceeded budget for model=gpt-4o","type":"budget_exceeded","param":null,"code":"400"}}`, 400},
		{"per-model end-user budget, 429", "e1", `{"error":{"message":"LiteLLM End User: e1, exceeded budget for model=gpt-4o","type":"budget_exceeded","param":null,"code":"429"}}`, 429},
		{"per-model end-user budget, 401", "e1", `{"error":{"message":"LiteLLM End User: e1, exceeded budget for model=gpt-4o","type":"auth_error","param":"None","code":401}}`, 401},
	} {
		req := `{"model":"m","user":"` + c.user + `","messages":[{"role":"user","content":"hi"}]}`
		v := classify56(c.status, c.body, req, false)
		t.Logf("%s: %s (%s)", c.name, v.Class, v.Evidence)
		if aboutProvider(v.Class) {
			t.Errorf("%s: one end user's budget read as the relay's %s (%s): cools the account for every client", c.name, v.Class, v.Evidence)
		}
	}
}
