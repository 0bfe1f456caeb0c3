package classify

import "testing"

// Round 53's rules of hunt 53h (Anthropic-compatible endpoints and relays
// behind Claude Code), each beside the near answers it must leave alone and
// an echo guard: the client's own words quoted back never steer the class.

// The stock Chinese text for a 400, 请求参数错误 ("request parameter
// error"), and a bare 参数错误 opening its clause name no member, field or
// limit (hunt 53h: new-api relaying a Claude or Volcengine upstream's
// {"error":{"type":"<nil>","message":"请求参数错误 (request id: …) (request
// id: …)"},"type":"error"}; corpus newapi-relayed-request-params-error-cn-400):
// no proof the input is wrong, unknown, as "The parameter is invalid."
// (SiliconFlow's 20015) is. A member named before 参数错误 stays bad input,
// as "The messages parameter is invalid" does.
func TestRoundFiftyThreeERequestParamsErrorCN(t *testing.T) {
	newapi := `{"error":{"type":"\u003cnil\u003e","message":"请求参数错误 (request id: 20260311090712257699439Q7KCXmRD) (request id: 2026031109071120354598581d9uSHH)"},"type":"error"}`
	run(t, []tc{
		{"new-api's relayed 请求参数错误", 400, nil, newapi, false, "unknown", "phrase:请求参数错误"},
		{"a bare 参数错误", 400, nil, `{"error":{"message":"参数错误"}}`, false, "unknown", "phrase:参数错误"},
		{"a bare 参数错误 after a code label", 400, nil, `{"code":400,"msg":"400: 参数错误"}`, false, "unknown", "phrase:参数错误"},
		{"a 429's status still decides", 429, nil, `{"error":{"message":"请求参数错误"}}`, false, "rate_limited", "status:429"},

		// Near answers: a named member, the other Chinese wordings, a
		// detail phrase after the vague words.
		{"a named member stays bad_request", 400, nil, `{"error":{"message":"messages 参数错误"}}`, false, "bad_request", "phrase:参数错误"},
		{"a named member, no blank, stays bad_request", 400, nil, `{"error":{"message":"temperature参数错误"}}`, false, "bad_request", ""},
		{"参数非法 stays bad_request", 400, nil, `{"error":{"message":"messages 参数非法"}}`, false, "bad_request", "phrase:参数非法"},
		{"参数不合法 stays bad_request", 400, nil, `{"error":{"message":"请求参数不合法"}}`, false, "bad_request", "phrase:参数不合法"},
		{"the English twin stays unknown", 400, nil, `{"error":{"message":"The parameter is invalid. Please check again."}}`, false, "unknown", "phrase:the parameter is invalid"},
		{"a field the detail names still decides", 400, nil, `{"error":{"message":"请求参数错误: field messages is required"}}`, false, "bad_request", ""},
	})
	echoGuardNot(t, "请求参数错误", 429, Unknown)
	echoGuardNot(t, "参数错误", 403, Unknown)
}

// A gateway that has no provider config for the model it was sent (hunt
// 53h: LiteLLM's /v1/messages for a Bedrock Claude deployment, "Anthropic
// messages provider config not found for model: us.anthropic.claude-…" in
// its envelope with code "500"; corpus
// litellm-v1-messages-anthropic-provider-config-not-found-500): this
// endpoint cannot serve the model until its operator reconfigures it,
// unavailable at any status, as new-api's 500 "ratio or price not set"
// (newapi-model-ratio-or-price-not-set-500-cn) is. LiteLLM's "No
// deployments available for selected model, Try again in N seconds" is its
// cooldown and stays rate_limited.
func TestRoundFiftyThreeEProviderConfigNotFoundForModel(t *testing.T) {
	litellm := `{"error":{"message":"Anthropic messages provider config not found for model: us.anthropic.claude-3-7-sonnet-20250219-v1:0","type":"None","param":"None","code":"500"}}`
	run(t, []tc{
		{"LiteLLM's 500", 500, nil, litellm, false, "unavailable", "phrase:config not found for model"},
		{"the same at 400", 400, nil, litellm, false, "unavailable", "phrase:config not found for model"},
		{"the same at 404", 404, nil, litellm, false, "unavailable", ""},
		{"the same at 503", 503, nil, litellm, false, "unavailable", "phrase:config not found for model"},

		// Near answers: LiteLLM's cooldown, a config not found for
		// something else, the parts in two sentences.
		{"LiteLLM's cooldown stays rate_limited", 429, nil, `{"error":{"message":"No deployments available for selected model, Try again in 60 seconds. Passed model=claude-sonnet-4. pre-call-checks=False, cooldown_list=[]","type":"None","param":"None","code":"429"}}`, false, "rate_limited", ""},
		{"a config not found for a tool stays a 500", 500, nil, `{"error":{"message":"Tool config not found for server: weather"}}`, false, "server_error", "status:500"},
		{"config not found and the model in two sentences stay a 500", 500, nil, `{"error":{"message":"Config not found. For model routing see the docs."}}`, false, "server_error", "status:500"},
	})
	// The model Detour sent is known and not the one named: a feature's.
	v := Classify(Response{Status: 500, Body: []byte(`{"error":{"message":"Embedding provider config not found for model: text-embedding-3-small"}}`), Model: "claude-sonnet-4"})
	if v.Class == Unavailable {
		t.Errorf("another model's missing config: %s (%s)", v.Class, v.Evidence)
	}
	echoGuardNot(t, "provider config not found for model: m", 400, Unavailable)
	echoGuardNot(t, "provider config not found for model: m", 500, Unavailable)
}
