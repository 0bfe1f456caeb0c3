package classify

import "testing"

// Hunt 62d: the codes the vendors' own catalogues document, each in the
// vendor's envelope with a message that decides nothing ("error"): the
// code alone must place it. OpenRouter's error_type and availability code
// (its "Errors and debugging" reference), OpenAI's spend limits (its error
// codes guide), Groq's flex capacity, Bedrock's model not ready and stream
// broken, OpenAI's image codes in a Responses stream.
func TestVendorCatalogueCodes(t *testing.T) {
	for _, c := range []struct {
		name   string
		status int
		body   string
		stream bool
		want   Class
	}{
		{"openrouter context window at a 400", 400, `{"error":{"code":400,"message":"error","metadata":{"error_type":"context_length_exceeded"}}}`, false, ContextLength},
		{"openrouter filter at a 400", 400, `{"error":{"code":400,"message":"error","metadata":{"error_type":"content_policy_violation"}}}`, false, Refusal},
		{"openrouter refusal mid-stream", 200, "data: {\"error\":{\"code\":400,\"message\":\"error\",\"metadata\":{\"error_type\":\"refusal\"}},\"choices\":[{\"index\":0,\"delta\":{\"content\":\"\"},\"finish_reason\":\"error\"}]}\n\n", true, Refusal},
		{"openrouter image too large", 400, `{"error":{"code":400,"message":"error","metadata":{"error_type":"image_too_large"}}}`, false, Overflow},
		{"openrouter choices error", 200, `{"choices":[{"message":{"role":"assistant","content":"par"},"finish_reason":"error","error":{"code":502,"message":"error","metadata":{"error_type":"provider_unavailable"}}}]}`, false, ServerError},
		{"openrouter responses skin collapses a revoked key to server_error", 200, "data: {\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"server_error\",\"message\":\"Invalid credentials\"},\"error_type\":\"authentication\"}}\n\n", true, Auth},
		{"openrouter messages skin", 401, `{"type":"error","error":{"type":"authentication_error","message":"error","error_type":"authentication"}}`, false, Auth},
		{"openrouter availability: model id unknown at a 400", 400, `{"error":{"message":"error","error_type":"invalid_request","http_status":400,"availability":{"code":"model_not_found","retryable":false}}}`, false, Unavailable},
		{"openrouter availability: every provider full", 429, `{"error":{"message":"error","error_type":"rate_limit_exceeded","availability":{"code":"capacity_exhausted"}}}`, false, ServerError},
		{"openrouter image not found is no proof", 404, `{"error":{"code":404,"message":"error","metadata":{"error_type":"image_not_found"}}}`, false, Unknown},
		{"openai org spend limit", 429, `{"error":{"message":"error","type":null,"code":"organization_spend_limit_exceeded"}}`, false, Quota},
		{"openai project spend limit", 429, `{"error":{"message":"error","type":null,"code":"project_spend_limit_exceeded"}}`, false, Quota},
		{"openai assigned usage limit", 429, `{"error":{"message":"error","type":null,"code":"organization_usage_limit_exceeded"}}`, false, Quota},
		{"openai image format in a response.failed", 200, "data: {\"type\":\"response.failed\",\"response\":{\"id\":\"r\",\"status\":\"failed\",\"error\":{\"code\":\"invalid_image_format\",\"message\":\"error\"}}}\n\n", true, BadRequest},
		{"groq flex capacity", 498, `{"error":{"message":"error","type":null,"param":null,"code":"capacity_exceeded"}}`, false, ServerError},
		{"bedrock model not ready at a 429", 429, `{"message":"error","__type":"ModelNotReadyException"}`, false, ServerError},
		{"bedrock stream broken at a 424", 424, `{"message":"error","__type":"ModelStreamErrorException"}`, false, ServerError},
	} {
		want56(t, c.name, classify56(c.status, c.body, "", c.stream), c.want, "")
	}
}

// The availability codes a client's routing preferences can cause are
// left to the words and the routing rule (review 61c): OpenRouter's
// privacy_restricted to a request that narrows its providers is the
// client's, and cools nothing.
func TestRouterAvailabilityLeavesClientRoutingToTheRule(t *testing.T) {
	body := `{"error":{"message":"No endpoints for openai/gpt-5.2 match your data policy (zero data retention). Adjust at https://openrouter.ai/settings/privacy.","error_type":"not_found","http_status":404,"availability":{"code":"privacy_restricted","retryable":false}}}`
	req := `{"model":"m","provider":{"zdr":true},"messages":[{"role":"user","content":"hi"}]}`
	if v := classify56(404, body, req, false); v.Class != BadRequest {
		t.Errorf("privacy_restricted to a request asking for zero data retention: %s (%s), want bad_request", v.Class, v.Evidence)
	}
	if v := classify56(404, body, "", false); v.Class == Unavailable && v.Evidence == "openrouter:availability=privacy_restricted" {
		t.Errorf("privacy_restricted decided by its code: %s (%s)", v.Class, v.Evidence)
	}
}
