package classify

import (
	"net/http"
	"testing"
)

// TestVocabularyRoundThirtyOne: three held-out hunts (structured outputs
// and tool definitions; caching, files and stored things a call refers to;
// hosted tools and remote MCP), each message labelled from its meaning
// before the classifier ran (corpus README, "Vocabulary round thirty-one").
// Each positive failed before its rule; the near-misses beside them must
// not move.
func TestVocabularyRoundThirtyOne(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	bedrock := http.Header{"X-Amzn-Errortype": {"ValidationException"}}
	container := `{"model":"gpt-5","input":"rerun the plot","tools":[{"type":"code_interpreter","container":"cntr_68a9f2c0e4b881918d3c2a7e5b1f0c9d"}]}`
	guarded := `{"model":"anthropic.claude-haiku-4-5","messages":[{"role":"user","content":"hi"}],"guardrailConfig":{"guardrailIdentifier":"gr-abc123xyz","guardrailVersion":"999"}}`
	runHostile(t, []hostileCase{
		// OpenAI's cap on a list of the request (cgoinglove/better-chatbot#197):
		// another vendor takes more tools; a string too long is the client's.
		{name: "tools array too long", status: 400,
			body: `{"error":{"message":"Invalid 'tools': array too long. Expected an array with maximum length 128, but got an array with length 217 instead."}}`,
			req:  chat, model: "gpt-5", want: Overflow},
		// (The same wording with OpenAI's code string_above_max_length is
		// overflow by that code, as before: this is the words alone.)
		{name: "the words of a string too long stay bad input", status: 400,
			body: `{"error":{"message":"Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got a string with length 70 instead."}}`,
			req:  chat, model: "gpt-5", want: BadRequest},

		// TGI's tool grammar (its source): the model's own output did not parse.
		{name: "tgi generated text", status: 422,
			body: `{"error":"Tool error: Failed to parse generated text: expected value at line 1 column 1 \"I will look that up\"","error_type":"tool_error"}`,
			req:  chat, model: "m", want: Unknown},
		{name: "the client's body failing to parse stays bad input", status: 422,
			body: `{"error":"Failed to parse the request body as JSON: messages[0]: missing field content","error_type":"validation"}`,
			req:  chat, model: "m", want: BadRequest},

		// Mistral (Gage-Technologies/mistral-go#8), Cohere (agno-agi/agno#3503):
		// a member missing or one the API does not have, named.
		{name: "mistral tool call id has to be defined", status: 400,
			body: `{"object":"error","message":"Tool call id has to be defined.","type":"invalid_request_error","param":null,"code":null}`,
			req:  chat, model: "mistral-large-latest", want: BadRequest},
		{name: "cohere unknown field", status: 422,
			body: `{"message":"unknown field: parameter 'requires_confirmation' is not a valid field. For proper usage, please refer to https://docs.cohere.com/reference/chat"}`,
			req:  chat, model: "command-a-03-2025", want: BadRequest},
		{name: "gemini's unknown schema keyword stays a gap", status: 400,
			body: `{"error":{"code":400,"message":"Invalid JSON payload received. Unknown name \"const\" at 'tools[0].function_declarations[5].parameters.properties[0].value': Cannot find field.","status":"INVALID_ARGUMENT"}}`,
			req:  chat, model: "gemini-2.5-pro", want: Unknown},

		// Bedrock Converse (aws/aws-sdk-net#3377, vercel/ai#2166): AWS's
		// wording of a malformed member.
		{name: "bedrock format of the value at", status: 400, header: bedrock,
			body: `{"message":"The format of the value at toolConfig.tools.0.toolSpec.inputSchema.json is invalid. Provide a json object for the field and try again."}`,
			req:  chat, model: "anthropic.claude-haiku-4-5", want: BadRequest},
		// Bedrock (autogluon/autogluon-assistant#54): the endpoint's model id
		// is served only through an inference profile.
		{name: "bedrock on-demand throughput", status: 400, header: bedrock,
			body: `{"message":"The provided model doesn't support on-demand throughput."}`,
			req:  chat, model: "anthropic.claude-3-5-sonnet-20240620-v1:0", want: Unavailable},
		{name: "a feature the model lacks stays a gap", status: 400, header: bedrock,
			body: `{"message":"This model doesn't support tool use in streaming mode."}`,
			req:  chat, model: "meta.llama3-70b-instruct-v1:0", want: Unknown},
		// A guardrail the client chose that does not exist is the client's;
		// the operator's (none in the request) fails the endpoint's calls
		// and stays unknown.
		{name: "bedrock client's guardrail does not exist", status: 400, header: bedrock,
			body: `{"message":"The guardrail identifier or version provided in the request does not exist."}`,
			req:  guarded, model: "anthropic.claude-haiku-4-5", want: BadRequest},
		{name: "the operator's guardrail stays unknown", status: 400, header: bedrock,
			body: `{"message":"The guardrail identifier or version provided in the request does not exist."}`,
			req:  chat, model: "anthropic.claude-haiku-4-5", want: Unknown},

		// OpenAI's code interpreter (cfregly/claude-feature-radar): a
		// container the request names, expired after its idle time.
		{name: "container is expired", status: 400, body: `{"error":{"message":"Container is expired.","type":"invalid_request_error"}}`,
			req: container, model: "gpt-5", want: BadRequest},
		{name: "expired without a stored thing in the request proves nothing", status: 400, body: `{"error":{"message":"Container is expired.","type":"invalid_request_error"}}`,
			req: chat, model: "gpt-5", want: Unknown},
		{name: "an expired key stays the key's", status: 400,
			body: `{"error":{"code":400,"message":"API key expired. Please renew the API key.","status":"INVALID_ARGUMENT"}}`,
			req:  `{"model":"gemini-2.5-pro","cachedContent":"cachedContents/abc123"}`, model: "gemini-2.5-pro", want: Auth},

		// OpenAI relayed by OpenRouter (its issues): what a model family
		// alone takes, a gap even beside `param: tools`.
		{name: "deep research models only support", status: 400,
			body:  `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\": {\"message\": \"Deep research models only support the 'web_search_preview', 'code_interpreter', 'mcp', and 'file_search' tools.\", \"type\": \"invalid_request_error\", \"param\": \"tools\", \"code\": null}}","provider_name":"OpenAI"}}}`,
			req:   `{"model":"openai/o3-deep-research","messages":[{"role":"user","content":"x"}],"tools":[{"type":"function","function":{"name":"f"}}]}`,
			model: "openai/o3-deep-research", want: Unknown},

		// xAI (its API's 422): a hosted tool's type this API does not have;
		// an unknown role stays the client's.
		{name: "xai unknown tool type", status: 422,
			body: "{\"error\":\"Failed to deserialize the JSON body into the target type: tools[55].type: unknown variant `x_search`, expected `function` or `live_search` at line 1 column 221749\"}",
			req:  chat, model: "grok-4", want: Unknown},
		{name: "an unknown role stays bad input", status: 422,
			body: "{\"error\":\"Failed to deserialize the JSON body into the target type: messages[0].role: unknown variant `developr`, expected one of `system`, `user`, `assistant`, `tool` at line 1 column 40\"}",
			req:  chat, model: "grok-4", want: BadRequest},
	})
}
