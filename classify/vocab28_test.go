package classify

import "testing"

// TestVocabularyRoundTwentyEight: three random samples of provider error
// bodies pasted in issue threads (coding agents and editors; chat apps and
// knowledge tools; agent frameworks and SDKs), labelled from their meaning
// before the classifier ran (docs/behaviour.md, "More signals, by class").
// Each positive failed before its rule; the near-misses beside them must
// not move.
func TestVocabularyRoundTwentyEight(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	oai := func(msg string) string { return `{"error":{"message":"` + msg + `"}}` }
	typed := func(msg, typ string) string {
		return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":"` + typ + `"}}`
	}
	runHostile(t, []hostileCase{
		// A version gate on the endpoint (Azure OpenAI, GitHub Models:
		// browser-use/browser-use#12): the api-version is the endpoint's
		// configuration behind Detour, never the client's.
		{name: "feature enabled only for later api versions", status: 400,
			body: `{"error":{"code":"BadRequest","message":"response_format value as json_schema is enabled only for api versions 2024-08-01-preview and later"}}`,
			req:  chat, model: "gpt-4o", want: Unknown},
		{name: "hyphenated api-version gate", status: 400,
			body: `{"error":{"code":"BadRequest","message":"This feature is enabled only for api-version 2025-03-01-preview and later."}}`,
			req:  chat, model: "m", want: Unknown},
		{name: "an invalid api version stays the request's", status: 400, body: oai("Invalid API version: 2024-13-01."), req: chat, model: "m", want: BadRequest},

		// DeepSeek's template at either end of the conversation
		// (browser-use/browser-use#359; the last-message twin is in the corpus).
		{name: "first message must be a user message", status: 400,
			body: typed("The first message (except the system message) of deepseek-reasoner must be a user message, but an assistant message detected.", "invalid_request_error"),
			req:  chat, model: "deepseek-reasoner", want: Unknown},
		{name: "roles must alternate stays bad input", status: 400, body: typed("messages: roles must alternate between \"user\" and \"assistant\"", "invalid_request_error"), req: chat, model: "m", want: BadRequest},
		{name: "a tool message without its call stays bad input", status: 400,
			body: typed("Messages with role 'tool' must be a response to a preceding message with 'tool_calls'", "invalid_request_error"), req: chat, model: "m", want: BadRequest},
		{name: "a role outside the enum stays bad input", status: 400, body: typed("messages.0.role must be one of [user, assistant]", "invalid_request_error"), req: chat, model: "m", want: BadRequest},

		// A tier or plan that serves only its vendor's own app (OpenCode's
		// free tier, quoted in Kilo-Org/kilocode's issues): the scoping
		// "only authorized for use" already names.
		{name: "free tier can only be used in its app", status: 400,
			body: `{"type":"error","error":{"type":"MissingSessionID","message":"OpenCode's free tier can only be used in OpenCode"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "free tier from within its app, a 403", status: 403,
			body: `{"type":"error","error":{"type":"FreeTierError","message":"OpenCode's free tier can only be used from within OpenCode"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "a parameter that can only be used with another stays bad input", status: 400,
			body: oai("tool_choice can only be used when tools are specified."), req: chat, model: "m", notAny: []Class{Forbidden}},
		{name: "the client's own words are no evidence", status: 400, body: oai("Your free tier can only be used in OpenCode"),
			req: `{"model":"m","messages":[{"role":"user","content":"your free tier can only be used in OpenCode"}]}`, model: "m", notAny: []Class{Forbidden}},

		// Bare words that name nothing (Bedrock's "Validation Error",
		// promptfoo/promptfoo#913): no proof of bad input; words that name
		// the input still are.
		{name: "a bare validation error names nothing", status: 400, body: `{"message":"Validation Error"}`, req: chat, model: "m", want: Unknown},
		{name: "a validation error that names its field", status: 400,
			body: `{"message":"1 validation error detected: Value at 'body' failed to satisfy constraint: Member must not be null"}`, req: chat, model: "m", want: BadRequest},
		{name: "input validation error", status: 400, body: oai("Input validation error"), req: chat, model: "m", want: BadRequest},
		{name: "input validation error with its detail", status: 422, body: `{"error":"Input validation error: ` + "`top_p`" + ` must be > 0.0 and < 1.0","error_type":"validation"}`, req: chat, model: "m", want: BadRequest},

		// The model missing (Ollama, quoted in immersive-translate's and
		// screenpipe's issues): Detour writes the model itself.
		{name: "model is required, OpenAI envelope", status: 400, body: `{"error":{"message":"model is required","type":"api_error","param":null,"code":null}}`, req: chat, model: "m", want: Unknown},
		{name: "model is required, Ollama's own", status: 400, body: `{"error":"model is required"}`, req: chat, model: "m", want: Unknown},
		{name: "model name cannot be empty", status: 400, body: oai("Model name not specified, model name cannot be empty"), req: chat, model: "m", want: Unknown},
		{name: "messages is required stays bad input", status: 400, body: oai("'messages' is required"), req: chat, model: "m", want: BadRequest},
		{name: "a field required stays bad input", status: 400, body: oai("max_tokens is required"), req: chat, model: "m", want: BadRequest},

		// A gateway without a provider for the model it was sent (ModelScope,
		// CLIProxyAPI), or wanting it in another form (Bifrost): the
		// endpoint's configured model.
		{name: "model has no provider supported", status: 400, body: `{"errors":{"message":"Model id : Qwen/Qwen3-8B , has no provider supported"}}`, req: chat, model: "Qwen/Qwen3-8B", want: Unavailable},
		{name: "unknown provider for model", status: 400, body: oai("unknown provider for model gpt-5.1-codex-max-xhigh"), req: chat, model: "gpt-5.1-codex-max-xhigh", want: Unavailable},
		{name: "a provider unknown for another model is not ours", status: 400, body: oai("unknown provider for model text-embedding-3-small"), req: chat, model: "gpt-5", notAny: []Class{Unavailable}},
		{name: "model in provider/model format", status: 400, body: oai("model should be in provider/model format"), req: chat, model: "gpt-5", want: Unavailable},
		{name: "messages in a format stay bad input", status: 400, body: oai("messages should be in the chat format"), req: chat, model: "m", want: BadRequest},

		// A relay's moderation (VoAPI, quoted in AstrBotDevs/AstrBot's issues).
		{name: "submission contains text that is not allowed", status: 403,
			body: oai("Your submission contains text that is not allowed"), req: chat, model: "m", want: Refusal},
		{name: "parameters that are not allowed are not a refusal", status: 400,
			body: oai("Your request contains parameters that are not allowed: foo"), req: chat, model: "m", notAny: []Class{Refusal}},

		// A server that catches every exception and raises a 500 with
		// FastAPI's print of its own 4xx ("400: …", LightRAG's
		// lightrag/api/routers/ollama_api.py): that 4xx, its words deciding.
		{name: "a relayed 400 with a colon: bad JSON", status: 500, body: `{"detail":"400: Invalid JSON in request body"}`, req: chat, model: "m", want: BadRequest},
		{name: "a relayed 400 with a colon that proves nothing", status: 500, body: `{"detail":"400: No messages provided"}`, req: chat, model: "m", want: Unknown},
		{name: "the server's template, relayed", status: 500, body: `{"detail":"400: Last message must be from user role"}`, req: chat, model: "m", want: Unknown},
		{name: "a 500 with a colon lead stays the server's", status: 500, body: `{"detail":"500: Internal error"}`, req: chat, model: "m", want: ServerError},
		{name: "a colon lead in lower case is prose", status: 500, body: `{"detail":"400: no messages"}`, req: chat, model: "m", want: ServerError},
		{name: "a relayed lead the client wrote is no evidence", status: 500, body: `{"detail":"400: Invalid JSON in request body"}`,
			req: `{"model":"m","messages":[{"role":"user","content":"400: Invalid JSON in request body"}]}`, model: "m", want: ServerError},

		// Turn order in DashScope's English (DB-GPT's issues), the twin of
		// its 交替出现.
		{name: "user and assistant need to appear alternately", status: 400,
			body: `{"code":"InvalidParameter","message":"User and assistant need to appear alternately in the message","request_id":"r"}`, req: chat, model: "m", want: BadRequest},

		// Voice agents' gateways and clients (livekit/agents' tests, xAI via
		// pipecat-ai/pipecat's issues, Google's front end).
		{name: "credit quota exceeded at a 429", status: 429,
			body: `{"type":"inference_quota_exceeded","error":"LLM token credit quota exceeded, category: MaxGatewayCredits, remaining_limit: 0","quota_type":"llm"}`, req: chat, model: "m", want: Quota},
		{name: "a token-per-minute cap of the same gateway stays a throttle", status: 429,
			body: `{"type":"inference_quota_exceeded","error":"LLM token/min rate limit exceeded, category: MaxConcurrentGatewayLLMTpm, remaining_limit: 0"}`, req: chat, model: "m", want: RateLimited},
		{name: "tool_choice without tools", status: 400,
			body: `{"code":"Client specified an invalid argument","error":"Invalid request content: A tool_choice was set on the request but no tools were specified."}`, req: chat, model: "m", want: BadRequest},
		{name: "Google's front end page names no input", status: 400,
			body: "<!DOCTYPE html>\n<html lang=en>\n  <title>Error 400 (Bad Request)!!1</title>\n  <p><b>400.</b> <ins>That\u2019s an error.</ins>\n  <p>Your client has issued a malformed or illegal request.  <ins>That\u2019s all we know.</ins>\n",
			req:  chat, model: "m", want: Unknown},
		{name: "malformed input stays bad input", status: 400, body: `{"message":"Malformed input request: #: required key [messages] not found, please reformat your input and try again."}`, req: chat, model: "m", want: BadRequest},

		// Data that does not decode (Ollama's server, behind ollama-js and
		// ollama-python).
		{name: "illegal base64 data", status: 400, body: `{"type":"error","error":{"type":"invalid_request_error","message":"invalid base64 image data: illegal base64 data at input byte 4"}}`, req: chat, model: "m", want: BadRequest},
		{name: "base64 images only is a gap", status: 400, body: oai("Only base64 images are supported"), req: chat, model: "m", notAny: []Class{BadRequest}},

		// Self-hosted servers' own words (tabbyAPI, Xinference, vLLM's
		// production-stack router), from their source.
		{name: "failed to read base64 image input", status: 400, body: `{"detail":"Failed to read base64 image input."}`, req: chat, model: "m", want: BadRequest},
		{name: "no active replicas is the server's state", status: 400, body: `{"detail":"Model has no active replicas, uid: qwen2.5-instruct"}`, req: chat, model: "qwen2.5-instruct", want: ServerError},
		{name: "PII detected is a guardrail's refusal", status: 400, body: `{"error":{"message":"PII detected in request","type":"pii_detected","code":400}}`, req: chat, model: "m", want: Refusal},
		{name: "a PII service down is no refusal", status: 400, body: oai("PII detection service unavailable"), req: chat, model: "m", notAny: []Class{Refusal}},

		// Browser clients, SQL agents and relays (chathub, WrenAI, one-hub and
		// CoAI's issues).
		{name: "an invalid model without the code stays gone", status: 400, body: oai("Invalid model 'gpt-9'"), req: chat, model: "gpt-9", want: Unavailable},
		{name: "a response_format type unavailable now is a gap", status: 400,
			body: typed("Failed to deserialize the JSON body into the target type: response_format: response_format.type `json_schema` is unavailable now at line 1 column 37554", "invalid_request_error"),
			req:  chat, model: "deepseek-chat", want: Unknown},
		{name: "an unknown variant stays bad input", status: 400,
			body: typed("Failed to deserialize the JSON body into the target type: messages[0].role: unknown variant `system`, expected `user` or `assistant` at line 1 column 29", "invalid_request_error"),
			req:  chat, model: "m", want: BadRequest},
		{name: "a member that should only be specified in a mode", status: 400,
			body: oai("Provider API error: `allowed_function_names` should only be specified for ANY mode."), req: chat, model: "m", want: BadRequest},
		{name: "not enough quota to use this model", status: 403,
			body: `{"status":false,"error":"You don't have enough quota to use this model. please [buy](/buy) or [subscribe](/subscribe) to get more."}`, req: chat, model: "m", want: Quota},

		// Model vendors' threads (DeepSeek, Ollama Cloud, DashScope).
		{name: "an image part a text model does not take", status: 400,
			body: typed("Failed to deserialize the JSON body into the target type: messages[25]: unknown variant `image_url`, expected `text` at line 1 column 94434", "invalid_request_error"),
			req:  chat, model: "deepseek-chat", want: Unknown},
		{name: "a role's unknown variant stays bad input", status: 400,
			body: typed("Failed to deserialize the JSON body into the target type: messages[1].role: unknown variant `developer`, expected one of `system`, `user`, `assistant`, `tool` at line 1 column 51036", "invalid_request_error"),
			req:  chat, model: "deepseek-chat", want: BadRequest},
		{name: "subscription payment past due", status: 403,
			body: `{"error":"your subscription payment is past due. update your payment method at https://ollama.com/settings"}`, req: chat, model: "m", want: Quota},
		{name: "thinking only when streamed", status: 400,
			body: `{"error":{"code":"invalid_parameter_error","message":"parameter.enable_thinking must be set to false for non-streaming calls","param":null,"type":"invalid_request_error"}}`,
			req:  chat, model: "qwen3-32b", want: Unknown},
		{name: "logprobs at odds with top_logprobs stays bad input", status: 400, body: oai("logprobs must be set to true if top_logprobs is set"), req: chat, model: "m", want: BadRequest},

		// Clouds' own answers (OCI, Snowflake Cortex, Vertex, Azure,
		// watsonx), as their SDKs' issue threads quote them.
		{name: "OCI's one 404 for a policy or a model", status: 404, body: `{"code":"404","message":"Authorization failed or requested resource not found."}`, req: chat, model: "m", want: Unavailable},
		{name: "an authorization failure with a key stays auth", status: 401, body: oai("Authorization failed: invalid API key"), req: chat, model: "m", want: Auth},
		{name: "a model unavailable in this region", status: 400,
			body: `{"message":"The model you requested is unavailable in your region. To access it, enable cross region inference with AWS_US, ANY_REGION."}`, req: chat, model: "claude-3-5-sonnet", want: Unavailable},
		{name: "a service temporarily out of capacity at a 429", status: 429,
			body: `{"error":{"code":429,"message":"Unable to submit request because the service is temporarily out of capacity. Try again later.","status":"RESOURCE_EXHAUSTED"}}`, req: chat, model: "m", want: ServerError},
		{name: "no authorization header present", status: 400, body: oai("No authorization header present"), req: chat, model: "m", want: Auth},
		{name: "a tokenizer's warning names no window", status: 400,
			body: oai("Token indices sequence length is longer than the specified maximum sequence length for this model (2048 > 512). Running this sequence through the model will result in indexing errors"),
			req:  chat, model: "m", notAny: []Class{ContextLength}},
		{name: "a sequence longer than the model's maximum", status: 400,
			body: `{"errors":[{"code":"invalid_input_argument","message":"Invalid input argument for Model 'ibm/slate-125m-english-rtrvr': Token sequence length is longer than the specified maximum sequence length for this model (1336 > 512)."}]}`,
			req:  chat, model: "ibm/slate-125m-english-rtrvr", want: ContextLength},

		// From the held-out hunts' misses (GPUStack, LMDeploy, Ollama's
		// server source): the members and headers Detour writes, a model
		// this server cannot run.
		{name: "missing 'model' field", status: 400, body: `{"error":"Missing 'model' field"}`, req: chat, model: "m", want: Unknown},
		{name: "a missing messages field stays bad input", status: 400, body: `{"error":"Missing 'messages' field"}`, req: chat, model: "m", want: BadRequest},
		{name: "a header the adapter writes", status: 400, body: oai("Missing required header: anthropic-version"), req: chat, model: "m", want: Unknown},
		{name: "the key's header missing is auth", status: 400, body: oai("Missing required header: Authorization"), req: chat, model: "m", want: Auth},
		{name: "a missing parameter stays bad input", status: 400, body: oai("Missing required parameter: 'messages'."), req: chat, model: "m", want: BadRequest},
		{name: "a remote model this server cannot run", status: 400, body: `{"error":"this server cannot run this remote model"}`, req: chat, model: "gpt-oss:120b-cloud", want: Unavailable},
		{name: "a model no longer compatible with the server", status: 500,
			body: `{"error":"'llama3.2-vision' is no longer compatible with your version of Ollama and has been replaced by a newer version. To re-download, run 'ollama pull llama3.2-vision'"}`,
			req:  chat, model: "llama3.2-vision", want: Unavailable},
	})
}
