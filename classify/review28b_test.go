package classify

import "testing"

// review 28b: a hostile review of the rules of 45bb510, 870dcea and 825482b.

// TestReview28bOurModelAnywhere: the new forbidden phrases ("is not
// allowed, allowed", "is not allowed for this api key", "is not allowed for
// this key") count "only where the text names the model Detour sent", but
// hasName looks for the name anywhere in the text. LiteLLM appends
// "Received Model Group=<the model it was sent>" to every error it relays,
// and Cody-style "allowed: [...]" lists name the models that ARE allowed,
// so the guard passes for text about a feature, a file or another model.
// Forbidden at a 400 does not fail over and cools the endpoint after
// failure_threshold: one client's request shuts the endpoint for everyone.
func TestReview28bOurModelAnywhere(t *testing.T) {
	chat := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// A gateway's per-key scoping of a request parameter (`Forbidden:
		// query parameter "${name}" is not allowed for this key`), relayed
		// by LiteLLM: the parameter is the client's.
		{name: "a parameter not allowed for this key, relayed by LiteLLM", status: 400,
			body: litellmRelayed(`Forbidden: query parameter \"include\" is not allowed for this key.`),
			req:  chat, model: "gpt-4o", notAny: []Class{Forbidden}},
		// A feature the key lacks ("Image generation is not allowed for this
		// API key", a sub2api-style relay's): a feature's, not the model's.
		{name: "a feature not allowed for this API key, relayed by LiteLLM", status: 400,
			body: litellmRelayed(`Image generation is not allowed for this API key.`),
			req:  chat, model: "gpt-4o", notAny: []Class{Forbidden}},
		// The common validation idiom ("file type %s is not allowed,
		// allowed types: %v"): the client's upload.
		{name: "a file type not allowed, allowed types, relayed by LiteLLM", status: 400,
			body: litellmRelayed(`File type image/bmp is not allowed, allowed types: image/png, image/jpeg.`),
			req:  chat, model: "gpt-4o", notAny: []Class{Forbidden}},
		// Cody Gateway's own form: the model refused is another; the model
		// Detour sent is named only in the list of those allowed.
		{name: "our model named only in the allowed list", status: 400,
			body: `{"error":{"message":"model \"anthropic/claude-3-opus\" is not allowed, allowed: [gpt-4o, gpt-4o-mini]"}}`,
			req:  chat, model: "gpt-4o", notAny: []Class{Forbidden}},
	})
}

// TestReview28bSubObjectModelRequired: "model is required" and its kin
// (vague unknown: "Detour writes the model itself") match where the model
// is a sub-object's the client wrote: the word start after '.' lets
// "session.model is required" (Bifrost's realtime client-secret handler)
// and "stt.model is required" (code invalid_input) hit the vague phrase,
// which outranks "is required". Before 45bb510 both were bad_request; now
// the client's bad request is retried on every target of the route.
func TestReview28bSubObjectModelRequired(t *testing.T) {
	chat := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "session.model is required (Bifrost)", status: 400,
			body: `{"error":{"message":"session.model is required","type":"invalid_request_error"}}`,
			req:  chat, model: "gpt-4o", want: BadRequest},
		{name: "stt.model is required, invalid_input", status: 400,
			body: `{"error":{"code":"invalid_input","message":"stt.model is required"}}`,
			req:  chat, model: "gpt-4o", want: BadRequest},
		{name: "a field path of the model, relayed by LiteLLM", status: 400,
			body: `{"error":{"message":"litellm.BadRequestError: OpenAIException - session.model is required. Received Model Group=gpt-4o\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`,
			req:  chat, model: "gpt-4o", want: BadRequest},
	})
}

// TestReview28bValidationErrorWithDetails: the bare "Validation error"
// ending its text is vague unknown (Bedrock's {"message":"Validation
// Error"}), but the same words are the usual header of a Zod / express
// validation answer whose details sit in a sibling member ({ error:
// 'Validation error', details: error.errors }), which the classifier does
// not read as structure. Before 45bb510 these were bad_request; now the
// client's invalid field is retried on every target.
func TestReview28bValidationErrorWithDetails(t *testing.T) {
	chat := `{"model":"gpt-4o","max_tokens":"10","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "validation error with Zod issues beside it", status: 400,
			body: `{"error":"Validation error","details":[{"code":"invalid_type","expected":"number","received":"string","path":["max_tokens"],"message":"Expected number, received string"}]}`,
			req:  chat, model: "gpt-4o", want: BadRequest},
		{name: "validation error, success false, 422", status: 422,
			body: `{"success":false,"error":"Validation Error","details":[{"code":"too_small","minimum":1,"type":"array","inclusive":true,"path":["messages"],"message":"Array must contain at least 1 element(s)"}]}`,
			req:  chat, model: "gpt-4o", want: BadRequest},
		{name: "validation error with a details string", status: 400,
			body: `{"error":{"code":400,"message":"Validation error","details":"Invalid max_tokens value"}}`,
			req:  chat, model: "gpt-4o", want: BadRequest},
	})
}

// TestReview28bRelaySuffixNamesNoModel: LiteLLM adds "Received Model
// Group=<the model it was sent>" to every error it relays, so a phrase
// scoped to the model Detour sent (ourModel) found that name in every
// LiteLLM-relayed error, whatever the error was about: "Tool model not
// allowed: dall-e-2" read as forbidden (the endpoint cools for a client's
// tool). The scope is read in the upstream's own words.
func TestReview28bRelaySuffixNamesNoModel(t *testing.T) {
	chat := `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a tool's model not allowed, relayed by LiteLLM", status: 400, body: litellmRelayed("Tool model not allowed: dall-e-2"),
			req: chat, model: "gpt-4o", notAny: []Class{Forbidden}},
		{name: "our model not allowed, relayed by LiteLLM", status: 400, body: litellmRelayed("Model not allowed: gpt-4o is not in your plan."),
			req: chat, model: "gpt-4o", want: Forbidden},
	})
}

// litellmRelayed is msg as LiteLLM relays an upstream's 400 for the model
// group gpt-4o.
func litellmRelayed(msg string) string {
	return `{"error":{"message":"litellm.BadRequestError: OpenAIException - ` + msg +
		` Received Model Group=gpt-4o\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`
}
