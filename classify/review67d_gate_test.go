package classify

import "testing"

// Review 67d: a feature the account lacks, refused to the request that
// asked for it, is that request's gap (unknown: nothing counted, nothing
// cooled); a gate on the model, the credential or the whole service stays
// forbidden, and so does a feature gate the request did not ask for.
func TestReview67dRequestFeatureGate(t *testing.T) {
	const image = `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"what is it"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}}]}]}`
	const plain = `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	const beta = `{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}` + "\ncontext-1m-2025-08-07\n2023-06-01"
	multimodal := `{"message":"Multimodal is not enabled for your organization and model","type":"invalid_request_error","param":"model","code":"multimodal_not_enabled"}`
	vision := `{"error":{"message":"vision is not enabled for this organization","code":""}}`
	tier := `{"error":{"message":"` + "`service_tier` `auto`" + ` is not available for this org. You can check your plan at https://console.groq.com/settings/billing/plans, and upgrade to access the required service tier.","type":"invalid_request_error"}}`
	longctx := `{"type":"error","error":{"type":"invalid_request_error","message":"The long context beta is not yet available for this subscription."},"request_id":"req_011CYRQ9U8E3bhA6nzRupvui"}`
	verifyStream := `{"error":{"message":"Your organization must be verified to stream this model. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`
	verifySummary := `{"error":{"message":"Your organization must be verified to generate reasoning summaries. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization. If you just verified, it can take up to 15 minutes for access to propagate.","type":"invalid_request_error","param":"reasoning.summary","code":"unsupported_value"}}`
	for _, c := range []struct {
		name      string
		status    int
		body, req string
		want      Class
	}{
		{"multimodal, an image sent", 403, multimodal, image, Unknown},
		{"vision, an image sent", 400, vision, image, Unknown},
		{"service_tier named, sent", 400, tier, `{"model":"m","service_tier":"auto","messages":[]}`, Unknown},
		{"long context beta", 400, longctx, beta, Unknown},
		{"two betas", 400, longctx, plain + "\ncontext-1m-2025-08-07, interleaved-thinking-2025-05-14\n2023-06-01", Unknown},
		// A beta the client did not ask for (the operator's provider
		// headers add it: not in the evidence), or no beta at all.
		{"no client beta", 400, longctx, plain + "\n2023-06-01", Forbidden},
		{"beta only in the text", 400, longctx, `{"model":"m","messages":[{"role":"user","content":"context-1m-2025-08-07"}]}`, Forbidden},
		// OpenAI's organisation verification (corpus
		// openai-organization-must-be-verified-stream-400,
		// openai-org-must-be-verified-reasoning-summaries).
		{"verified to stream", 400, verifyStream, `{"model":"m","stream":true,"messages":[]}`, Unknown},
		{"verified to summarise", 400, verifySummary, `{"model":"m","reasoning":{"effort":"high","summary":"auto"},"input":"hi"}`, Unknown},
		{"verified to stream, not streamed", 400, verifyStream, plain, Forbidden},
		{"verified to use the model", 404, `{"error":{"message":"Your organization must be verified to use the model ` + "`o3`" + `. Please go to: https://platform.openai.com/settings/organization/general and click on Verify Organization.","type":"invalid_request_error","param":null,"code":"model_not_found"}}`, `{"model":"m","stream":true,"messages":[]}`, Forbidden},
		// A tool the request offers (an illustrative wording).
		{"a tool named", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"web_search is not enabled for this organization."}}`, `{"model":"m","max_tokens":5,"tools":[{"type":"web_search_20250305","name":"web_search"}],"messages":[]}`, Unknown},
		{"a tool not offered", 400, `{"type":"error","error":{"type":"invalid_request_error","message":"web_search is not enabled for this organization."}}`, plain, Forbidden},
		// What the request did not ask for stays the endpoint's.
		{"multimodal, no image", 403, multimodal, plain, Forbidden},
		{"vision, no image", 400, vision, plain, Forbidden},
		{"service_tier named, not sent", 400, tier, plain, Forbidden},
		// corpus bedrock-claude-permission-error-not-available-for-this-account-400
		{"the model gated", 400, `{"type":"error","error":{"type":"permission_error","message":"anthropic.claude-opus-4-7 is not available for this account. You can explore other available models on Amazon Bedrock."}}`, image, Forbidden},
		{"the service gated", 403, `{"error":{"message":"Inference gateway is not enabled for your organization"}}`, image, Forbidden},
		{"feature not named", 403, `{"error":{"message":"This feature is not enabled for your account"}}`, image, Forbidden},
	} {
		if v := classify56(c.status, c.body, c.req, false); v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
