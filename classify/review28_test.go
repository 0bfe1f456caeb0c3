package classify

import "testing"

// review 28.
func TestReview28(t *testing.T) {
	runHostile(t, []hostileCase{
		// "tier can only be used" (Forbidden: cools the endpoint for every
		// client) outranks the upstream's own param naming a field of the
		// client's request: one client's service_tier the model does not
		// offer is read as the endpoint forbidden. The bare snake_case form
		// ("service_tier can only be used …") is already bad_request
		// (openai:param); the spaced form is not.
		{name: "a service tier the client asked for", status: 400,
			body: `{"error":{"message":"Invalid value for service_tier: the priority tier can only be used with gpt-5 models","type":"invalid_request_error","param":"service_tier"}}`,
			req:  `{"model":"m","service_tier":"priority","messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{Forbidden}},
		{name: "anthropic: a field path of the client's request first", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"service_tier: priority tier can only be used with a Priority Tier commitment"}}`,
			req:  `{"model":"m","service_tier":"priority","max_tokens":5,"messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{Forbidden}},

		// "Model o1 is enabled only for api versions …": the deployment
		// named by this endpoint's base_url can never serve its model at the
		// api-version the operator configured. Unknown cools nothing and
		// tells nobody: every request tries this endpoint first, forever.
		// The feature form ("response_format … is enabled only for …")
		// rightly stays unknown (request × endpoint).
		{name: "a model the endpoint's api-version never serves", status: 400,
			body: `{"error":{"code":"BadRequest","message":"Model o1 is enabled only for api versions 2024-12-01-preview and later"}}`,
			req:  `{"model":"o1","messages":[{"role":"user","content":"hi"}]}`, model: "o1", want: Unavailable},
	})
}
