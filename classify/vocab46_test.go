package classify

import (
	"net/http"
	"testing"
)

// TestVocabularyRoundFortySix: hunt 46a's misses among the big providers'
// 2025–26 wordings (classify/testdata/corpus/README.md, round 46), each
// written as a rule only where the words themselves decide; the near-misses
// beside them must not move.
func TestVocabularyRoundFortySix(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	ant := func(msg string) string {
		return `{"type":"error","error":{"type":"invalid_request_error","message":"` + msg + `"}}`
	}
	aws := http.Header{"X-Amzn-Errortype": {"ValidationException"}}
	runHostile(t, []hostileCase{
		// A top-level Messages parameter named as a field path
		// (pydantic-ai#5167): the client's input.
		{name: "container field path", status: 400, body: ant("container: Input should be a valid string"), req: chat, model: "m", want: BadRequest},
		{name: "max_tokens field path", status: 400, body: ant("max_tokens: Field required"), req: chat, model: "m", want: BadRequest},
		{name: "a container in prose is no path", status: 400, body: ant("The container you asked for could not be started"), req: chat, model: "m", want: Unknown},

		// An account setting that keeps a model from this account
		// (pydantic-ai#8170): this endpoint cannot serve it, others can.
		{name: "data retention mode not available", status: 400, header: aws, body: `{"message":"data retention mode 'default' is not available for this model"}`, req: chat, model: "m", want: Unavailable},
		{name: "a validation naming a field stays bad input", status: 400, header: aws, body: `{"message":"The model returned the following errors: temperature and top_p cannot both be specified for this model. Please use only one."}`, req: chat, model: "m", want: BadRequest},

		// Anthropic's use-case form on a Bedrock account (obot#6747): this
		// endpoint cools and the walk moves on, by the words, not the code.
		{name: "use case form not submitted", status: 404, header: http.Header{"X-Amzn-Errortype": {"ResourceNotFoundException"}},
			body: `{"message":"Model use case details have not been submitted for this account. Fill out the Anthropic use case details form before using the model. If you have already filled out the form, try again in 15 minutes."}`, req: chat, model: "m", want: Unavailable},
		{name: "a model not found stays gone", status: 404, header: http.Header{"X-Amzn-Errortype": {"ResourceNotFoundException"}},
			body: `{"message":"Could not resolve the foundation model from the provided model identifier."}`, req: chat, model: "m", want: Unavailable},

		// A hosted tool this model or endpoint lacks (CLIProxyAPI#2861,
		// new-api#1586, copilot-api#220): other models take it.
		{name: "tool not supported with a named model", status: 400, body: `{"error":{"message":"Tool 'image_generation' is not supported with gpt-5.3-codex-spark.","type":"invalid_request_error","param":"tools","code":null}}`, req: chat, model: "m", want: Unknown},
		{name: "hosted tool not supported with a named model", status: 400, body: `{"error":{"message":"Hosted tool 'web_search_preview' is not supported with gpt-4.1-2025-04-14.","type":"invalid_request_error","param":"tools","code":null}}`, req: chat, model: "m", want: Unknown},
		{name: "requested tool not supported", status: 400, body: `{"error":{"message":"The requested tool image_generation is not supported.","code":"unsupported_value","param":"tools","type":"invalid_request_error"}}`, req: chat, model: "m", want: Unknown},
		{name: "a tool_choice not supported stays bad input", status: 400, body: `{"error":{"message":"The requested tool_choice 'required' is not supported.","code":"unsupported_value","param":"tool_choice","type":"invalid_request_error"}}`, req: chat, model: "m", want: BadRequest},
		{name: "a parameter not supported with another stays bad input", status: 400, body: `{"error":{"message":"'top_logprobs' is not supported with stream=true","type":"invalid_request_error","param":"top_logprobs","code":null}}`, req: chat, model: "m", want: BadRequest},
		{name: "an unsupported value stays bad input", status: 400, body: `{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`, req: chat, model: "m", want: BadRequest},
		{name: "the client's own words about a tool are no evidence", status: 400, body: `{"error":{"message":"Tool 'lookup' is not supported with gpt-5","type":"invalid_request_error","param":"tools","code":"unsupported_value"}}`,
			req: `{"model":"m","messages":[{"role":"user","content":"why does it say Tool 'lookup' is not supported with gpt-5"}]}`, model: "m", notAny: []Class{Unknown}},

		// The client's own upload, still processing (gaspare#6): only
		// this key's project holds it, so the client must wait.
		{name: "a file not yet active", status: 400, body: `{"error":{"code":400,"message":"The File cxgja95z0ak1 is not in an ACTIVE state and usage is not allowed.","status":"FAILED_PRECONDITION"}}`, req: chat, model: "m", want: BadRequest},
	})
}
