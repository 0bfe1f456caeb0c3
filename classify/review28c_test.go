package classify

import "testing"

// review 28c: a hostile review of the rules of 1474022, dbf6692 and f3d7555.

// litellmNoFallback wraps msg the way LiteLLM's router relays an upstream
// error when fallbacks are configured for other model groups but none for
// this one: the router appends "No fallback model group found for original
// model_group=<group>. Fallbacks=[…]" straight after the upstream's words (no
// separator), then its usual ". Received Model Group=<group>\nAvailable Model
// Group Fallbacks=None" (litellm/router.py; verbatim bodies in the corpus:
// "… Error code: 404No fallback model group found for original
// model_group=route-free-pool. Fallbacks=[{'route-openrouter-embedding':
// ['route-openrouter-embedding-fallback']}]. Received Model
// Group=route-free-pool\nAvailable Model Group Fallbacks=None").
func litellmNoFallback(msg, group string) string {
	return `{"error":{"message":"litellm.BadRequestError: OpenAIException - ` + msg +
		`No fallback model group found for original model_group=` + group +
		`. Fallbacks=[{'gpt-4o-mini': ['gpt-3.5-turbo']}]. Received Model Group=` + group +
		`\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`
}

// TestReview28cFallbackSuffixNamesModel: f3d7555 looks for the model
// Detour sent only before LiteLLM's "Received Model Group=" (ownWords), but
// LiteLLM's router names the same group earlier, in its "No fallback model
// group found for original model_group=<group>" suffix, on every relayed
// error of a group with no fallback of its own (any deployment with a
// fallbacks list for other groups). There the model-scoped forbidden
// phrases count again whatever they are about: a tool's model or a feature
// the plan lacks is read as forbidden (no failover; the endpoint cools after
// failure_threshold), the exact cases TestReview28bRelaySuffixNamesNoModel
// pins.
func TestReview28cFallbackSuffixNamesModel(t *testing.T) {
	chat := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a tool's model not allowed, LiteLLM with fallbacks for other groups", status: 400,
			body: litellmNoFallback("Tool model not allowed: dall-e-2.", "gpt-4o"),
			req:  chat, model: "gpt-4o", notAny: []Class{Forbidden}},
		{name: "a plan without web search, LiteLLM with fallbacks for other groups", status: 400,
			body: litellmNoFallback("Your plan does not include access to web search.", "gpt-4o"),
			req:  chat, model: "gpt-4o", notAny: []Class{Forbidden}},
		// Control: the model Detour sent, named by the upstream itself,
		// stays forbidden with the same suffix (passes today).
		{name: "our model not allowed, LiteLLM with fallbacks for other groups", status: 400,
			body: litellmNoFallback("Model not allowed: gpt-4o is not in your plan.", "gpt-4o"),
			req:  chat, model: "gpt-4o", want: Forbidden},
	})
}

// TestReview28cAliasedGoneModelBehindLiteLLM: behind LiteLLM the model
// Detour sends is a model group, an alias; the upstream's own words name
// the deployment's model ("Unable to access non-serverless model
// Qwen/Qwen3-VL-8B-Instruct …", Together, its code model_not_available
// dropped where LiteLLM relays the message alone). The "Received Model
// Group=" suffix was the only proof the gone model is the one Detour's
// alias maps to; f3d7555 discards it, so a deployment gone for good is an
// unplaced 400 (unknown): every request fails over past it and it never
// cools. Unlike a tool's model, that model is nowhere in the client's
// request.
func TestReview28cAliasedGoneModelBehindLiteLLM(t *testing.T) {
	chat := `{"model":"qwen-vl","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "non-serverless deployment model behind a LiteLLM alias", status: 400,
			body: `{"error":{"message":"litellm.BadRequestError: Together_aiException - Unable to access non-serverless model Qwen/Qwen3-VL-8B-Instruct. Please visit https://api.together.ai/models/Qwen/Qwen3-VL-8B-Instruct to create and start a new dedicated endpoint for the model.. Received Model Group=qwen-vl\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`,
			req:  chat, model: "qwen-vl", want: Unavailable},
	})
}
