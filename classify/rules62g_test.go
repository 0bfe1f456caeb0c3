package classify

import "testing"

// Hunt 62g: gateways' and relays' documented errors, each in the relay's
// own envelope.
func TestRoundSixtyTwoRelayCatalogues(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		want   Class
	}{
		// LiteLLM's proxy refuses a team, a user or an org the model at
		// 401: the key serves its other models (forbidden, not auth).
		{"litellm team", 401, `{"error":{"message":"Team not allowed to access model. Team=team-1, Model=gpt-5. Allowed team models = ['gpt-4o']","type":"team_model_access_denied","param":"model","code":"401"}}`, Forbidden},
		{"litellm user", 401, `{"error":{"message":"User not allowed to access model. User=u-1, Model=gpt-5","type":"user_model_access_denied","param":"model","code":"401"}}`, Forbidden},
		{"litellm org", 401, `{"error":{"message":"Organization not allowed to access model. Org=o-1, Model=gpt-5","type":"org_model_access_denied","param":"model","code":"401"}}`, Forbidden},
		// Envoy AI Gateway relays Bedrock's exception in error.type.
		{"envoy bedrock model not ready", 429, `{"type":"error","error":{"type":"ModelNotReadyException:http://internal.amazon.com/coral/com.amazon.bedrock/","code":"429","message":"error"}}`, ServerError},
		{"envoy bedrock stream broken", 424, `{"type":"error","error":{"type":"ModelStreamErrorException:http://internal.amazon.com/coral/com.amazon.bedrock/","code":"424","message":"error"}}`, ServerError},
		// sub2api's subscription windows.
		{"sub2api monthly", 429, `{"error":{"type":"rate_limit_error","message":"monthly usage limit exceeded"}}`, Quota},
		{"sub2api weekly", 429, `{"error":{"type":"rate_limit_error","message":"weekly usage limit exceeded"}}`, Quota},
		// LiteLLM's end-user budget: the client's own user, not the key.
		{"litellm end user over budget at a 429", 429, `{"error":{"message":"ExceededBudget: End User=ishaan3 over budget. Spend=0.00088, Budget=0.0001","type":"budget_exceeded","param":"None","code":"429"}}`, BadRequest},
		{"litellm end user over budget at a 400", 400, `{"error":{"message":"ExceededBudget: End User=ishaan3 over budget. Spend=0.00088, Budget=0.0001","type":"budget_exceeded","param":"None","code":"400"}}`, BadRequest},
		{"litellm key over budget stays quota", 429, `{"error":{"message":"Budget has been exceeded! Current cost: 5.1, Max budget: 5.0","type":"budget_exceeded","param":"None","code":"429"}}`, Quota},
		{"litellm end user over budget", 401, `{"error":{"message":"ExceededBudget: End User=ishaan3 over budget. Spend=0.00088, Budget=0.0001","type":"auth_error","param":"None","code":401}}`, BadRequest},
		// new-api relaying Gemini's prompt block.
		{"new-api prompt blocked", 400, `{"error":{"message":"request blocked by Gemini API: SAFETY","type":"new_api_error","param":"","code":"prompt_blocked"}}`, Refusal},
	} {
		want56(t, c.name, classify56(c.status, c.body, "", false), c.want, "")
	}
	// The client's own words quoted back decide nothing: a 401 stays auth,
	// a 429 a rate limit.
	echo56(t, 401, "not allowed to access model", `{"error":{"message":"Invalid key. You said: not allowed to access model","type":"auth_error","code":"401"}}`, Auth)
	echo56(t, 401, "End User=me over budget", `{"error":{"message":"Invalid API key. Echo: End User=me over budget","type":"auth_error","code":401}}`, Auth)
	echo56(t, 429, "monthly usage limit", `{"error":{"message":"Too many requests for: monthly usage limit","type":"rate_limit_error"}}`, RateLimited)
}
