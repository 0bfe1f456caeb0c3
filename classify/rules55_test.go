package classify

import "testing"

// Round 55's rules, from hunts 55a (limits by time window), 55c (tool and
// structured-output errors) and 55d (search and hosted-tool APIs), each
// beside the near answers it must leave alone and an echo guard: the
// client's own words quoted back never steer the class.

// echo55 classifies body as an answer to a request whose user message is
// words, and wants the class the body has without them: the client's words
// quoted back are no evidence.
func echo55(t *testing.T, status int, words, body string, want Class) {
	t.Helper()
	req := `{"model":"m","messages":[{"role":"user","content":"` + words + `"}]}`
	if v := Classify(Response{Status: status, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != want {
		t.Errorf("the client's words %q quoted back: %s (%s), want %s", words, v.Class, v.Evidence, want)
	}
}

// (a1) DeepSeek scales an account's in-flight limit with its balance: "Your
// current concurrency is 26, which exceeds your concurrency limit of 25
// based on your remaining balance. Please top up your balance to restore
// your concurrency." (a TStudio RCA note; jobfetcher#42). The account still
// has money and the same endpoint serves once one request in flight ends:
// rate_limited, as OpenRouter's in_flight_budget_exhausted, outranking "top
// up". An empty balance (402 Insufficient Balance) stays quota.
func TestRoundFiftyFiveConcurrencyLimitOutranksTopUp(t *testing.T) {
	body := `{"error":{"message":"Too many requests. Your current concurrency is 26, which exceeds your concurrency limit of 25 based on your remaining balance. Please top up your balance to restore your concurrency.","type":"rate_limit_error","param":null,"code":"invalid_request_error"}}`
	run(t, []tc{
		{"DeepSeek's balance-scaled concurrency cap", 429, nil, body, false, "rate_limited", "phrase:exceeds your concurrency limit"},
		{"a bare top up stays quota", 429, nil, `{"error":{"message":"Please top up your balance to continue.","type":"rate_limit_error"}}`, false, "quota", "phrase:top up"},
		{"DeepSeek's empty balance stays quota", 402, nil, `{"error":{"message":"Insufficient Balance","type":"unknown_error","param":null,"code":"invalid_request_error"}}`, false, "quota", ""},
	})
	echo55(t, 429, "exceeds your concurrency limit", `{"error":{"message":"Please top up: 'exceeds your concurrency limit'"}}`, Quota)
}

// (a2) The over-twice reading of "(actual/limit): A/L" and "current: A,
// limit: L" (this request alone is over the window) holds only where the
// window counts tokens. A window of REQUESTS grows by one per request, so no
// count over it is one request too large: xAI's "Requests per Minute
// (actual/limit): 1922/60" is a throttle. (The body is the one a Go test,
// TestParseConsole429Info, holds, index id 55189195120; it is not a corpus
// case, since the corpus takes no other project's fixtures, but its first-hand
// per-second twin is: xai-429-resource-exhausted-team-requests-per-second-*.)
func TestRoundFiftyFiveRequestWindowIsNoOverflow(t *testing.T) {
	xai := func(window, n string) string {
		return `{"code":"resource-exhausted","error":"Too many requests for team t and model grok-4.3. Your team's rate limit is — ` + window + ` (actual/limit): ` + n + `."}`
	}
	run(t, []tc{
		{"xAI requests per minute, 1922/60", 429, nil, xai("Requests per Minute", "1922/60"), false, "rate_limited", ""},
		{"xAI requests per second, 2/2", 429, nil, xai("Requests per Second", "2/2"), false, "rate_limited", ""},
		// Token windows keep the over-twice reading.
		{"xAI tokens per minute, 65605/16000", 429, nil, xai("Tokens per Minute", "65605/16000"), false, "overflow", "phrase:requested>limit"},
		{"Moonshot TPM current over twice", 429, nil, `{"error":{"message":"rate_limit_reached_error: TPM limit reached, current: 1410, limit: 100","type":"rate_limit_reached_error"}}`, false, "overflow", "phrase:requested>limit"},
	})
	echo55(t, 429, "Tokens per Minute (actual/limit): 65605/16000", `{"error":{"message":"Too many requests. Your text: 'Tokens per Minute (actual/limit): 65605/16000'"}}`, RateLimited)
}

// (b1) The Anthropic-dialect twin of round 54b's lag rule: a server's copy
// of the Messages API refusing a documented tool_choice member or type
// (docs.claude.com/en/api/messages#body-tool-choice: type auto, any, tool,
// none; name; disable_parallel_tool_use). Bedrock's "#/tool_choice:
// extraneous key [disable_parallel_tool_use] is not permitted"
// (anthropic-sdk-python#739) and vLLM's /v1/messages literal_error at
// ('body','tool_choice','type') for input 'none' (vllm#35836) are the
// server's lag: unknown. A key the API does not have, a key elsewhere, or
// an undocumented type stays bad_request.
func TestRoundFiftyFiveMessagesToolChoiceLag(t *testing.T) {
	bedrock := func(path, key string) string {
		return `{"message": "Malformed input request: #: subject must not be valid against schema {\"required\":[\"messages\"]}#/` + path + `: extraneous key [` + key + `] is not permitted, please reformat your input and try again."}`
	}
	vllm := func(input string) string {
		return `{"error":{"message":"[{'type': 'literal_error', 'loc': ('body', 'tool_choice', 'type'), 'msg': \"Input should be 'auto', 'any' or 'tool'\", 'input': '` + input + `', 'ctx': {'expected': \"'auto', 'any' or 'tool'\"}}]","type":"Bad Request","code":400}}`
	}
	run(t, []tc{
		{"Bedrock, disable_parallel_tool_use", 400, nil, bedrock("tool_choice", "disable_parallel_tool_use"), false, "unknown", "tool_choice:messages-member"},
		{"vLLM, type none", 400, nil, vllm("none"), false, "unknown", "tool_choice:messages-member"},
		{"Bedrock, a key the API lacks", 400, nil, bedrock("tool_choice", "parallel"), false, "bad_request", ""},
		{"Bedrock, the member at top level", 400, nil, bedrock("", "disable_parallel_tool_use"), false, "bad_request", ""},
		{"Bedrock, stream at #", 400, nil, `{"message":"Malformed input request: #: extraneous key [stream] is not permitted, please reformat your input and try again."}`, false, "bad_request", ""},
		{"vLLM, an undocumented type", 400, nil, vllm("bogus"), false, "bad_request", ""},
	})
	echoGuardEv(t, "#/tool_choice: extraneous key [disable_parallel_tool_use] is not permitted", 400, "tool_choice:messages-member")
	echoGuardEv(t, "[{'type': 'literal_error', 'loc': ('body', 'tool_choice', 'type'), 'msg': 'x', 'input': 'none'}]", 400, "tool_choice:messages-member")
}

// (b2) Gemini's schema subset in Vertex's wording ("Unable to submit request
// because `f` functionDeclaration `parameters.x` schema didn't specify the
// schema type field", "… specified other fields alongside any_of"): JSON Schema requires
// neither, OpenAI and Anthropic take such tools: unknown, as a keyword
// Gemini's schema lacks ("… should be of type OBJECT" is left to its
// pinned bad_request: vocab43c, e2e TestRelayedClientErrorDoesNotCoolTheRelay).
// A missing field in a declaration stays bad_request.
func TestRoundFiftyFiveVertexSchemaSubset(t *testing.T) {
	g := func(msg string) string {
		return `{"error":{"code":400,"message":"` + msg + `","status":"INVALID_ARGUMENT"}}`
	}
	run(t, []tc{
		{"no type", 400, nil, g("Unable to submit request because `create-field` functionDeclaration `parameters.data.meta.width` schema didn't specify the schema type field. Learn more: https://cloud.google.com/vertex-ai/generative-ai/docs/multimodal/function-calling"), false, "unknown", ""},
		{"beside any_of", 400, nil, g("Unable to submit request because `graphenium_add_edge` functionDeclaration `parameters.weight` schema specified other fields alongside any_of. When using any_of, it must be the only field set."), false, "unknown", ""},
		{"a missing field stays bad_request", 400, nil, g("* GenerateContentRequest.tools[0].function_declarations[0].parameters.properties[x].items: missing field."), false, "bad_request", ""},
	})
	echo55(t, 400, "functionDeclaration schema didn't specify the schema type field", g("Invalid value at messages[0]: 'functionDeclaration schema didn't specify the schema type field'"), BadRequest)
}

// (b3) Cerebras: "Tools with mixed values for 'strict' are not allowed"
// (code_puppy#368; Roo-Code#10334): OpenAI sets strict per function and
// takes the same list: this server's restriction, unknown, over its param.
func TestRoundFiftyFiveMixedStrict(t *testing.T) {
	run(t, []tc{
		{"Cerebras", 400, nil, `{"message": "Tools with mixed values for 'strict' are not allowed. Please set all tools to 'strict: true' or 'strict: false'", "type": "invalid_request_error", "param": "tools", "code": "wrong_api_format"}`, false, "unknown", "phrase:mixed values for"},
		{"a param with a bare message stays bad_request", 400, nil, `{"message": "Tools are not allowed.", "type": "invalid_request_error", "param": "tools", "code": "wrong_api_format"}`, false, "bad_request", ""},
	})
	echo55(t, 400, "mixed values for strict", `{"message": "Invalid value: 'mixed values for strict'", "param": "messages"}`, BadRequest)
}

// (b4) An empty part said "not supported" is a broken conversation, not a
// capability: DashScope's "Empty tool_calls is not supported in message."
// (autogen#5814; OpenAI refuses the same shape with code empty_array):
// bad_request. "X is not supported" stays a capability gap, unknown, and so
// does "not supported for empty prompts" (the noun after).
func TestRoundFiftyFiveEmptyIsNotSupported(t *testing.T) {
	run(t, []tc{
		{"DashScope's empty tool_calls", 400, nil, `{"error": {"code": "invalid_parameter_error", "param": null, "message": "<400> InternalError.Algo.InvalidParameter: Empty tool_calls is not supported in message.", "type": "invalid_request_error"}}`, false, "bad_request", ""},
		{"a capability stays unknown", 400, nil, `{"error": {"message": "Image input is not supported in message.", "type": "invalid_request_error"}}`, false, "unknown", ""},
		{"a feature for empty prompts stays unknown", 400, nil, `{"error": {"message": "Streaming is not supported for empty prompts.", "type": "invalid_request_error"}}`, false, "unknown", ""},
		{"empty in another sentence", 400, nil, `{"error": {"message": "The cache is empty. Tool calls is not supported here.", "type": "invalid_request_error"}}`, false, "unknown", ""},
	})
	echo55(t, 400, "Empty tool_calls is not supported", `{"error": {"message": "Your text: 'Empty tool_calls is not supported'", "type": "invalid_request_error"}}`, Unknown)
}

// (b5) Groq's validator: "'tools' : maximum number of items is 128"
// (ha-groq-cloud-api#25): more tools than this endpoint takes, overflow,
// as OpenAI's "array too long … maximum length 128". Another member's cap
// ('stop' : maximum number of items is 4) is not matched.
func TestRoundFiftyFiveGroqToolsCap(t *testing.T) {
	run(t, []tc{
		{"Groq's tools cap", 400, nil, `{"error": {"message": "'tools' : maximum number of items is 128", "type": "invalid_request_error"}}`, false, "overflow", ""},
		{"stop's cap is not the tools'", 400, nil, `{"error": {"message": "'stop' : maximum number of items is 4", "type": "invalid_request_error"}}`, false, "unknown", ""},
	})
	echo55(t, 400, "'tools' : maximum number of items is 128", `{"error": {"message": "Your text: ''tools' : maximum number of items is 128'"}}`, Unknown)
}

// (b6) Mistral's tool call id form: "Tool call id was call_search but must
// be a-z, A-Z, 0-9, with a length of 9." The ids come from whichever target
// answered the earlier turns and OpenAI, Anthropic and Gemini take them:
// this server's gap, unknown (behaviour.md: unknown cools nothing, so no
// client cools Mistral for everyone). A missing id stays bad_request.
func TestRoundFiftyFiveMistralToolCallIDForm(t *testing.T) {
	run(t, []tc{
		{"call_search", 400, nil, `{"object": "error", "message": "Tool call id was call_search but must be a-z, A-Z, 0-9, with a length of 9.", "type": "invalid_request_error", "param": null, "code": null}`, false, "unknown", ""},
		{"2968-LWy3uasib, code 3280", 400, nil, `{"object":"error","message":"Tool call id was 2968-LWy3uasib but must be a-z, A-Z, 0-9, with a length of 9.","type":"invalid_function_call","param":null,"code":"3280"}`, false, "unknown", ""},
		{"a missing id stays bad_request", 400, nil, `{"object":"error","message":"Tool call id has to be defined.","type":"invalid_request_error","param":null,"code":null}`, false, "bad_request", ""},
	})
	echo55(t, 400, "Tool call id was x but must be y", `{"object":"error","message":"Invalid value: 'Tool call id was x but must be y'","param":"messages"}`, BadRequest)
}

// (c1) "not implemented" in a 5xx (new-api: "not implemented (request id:
// …)" for a model its channel cannot convert, new-api#2801) is unknown, as
// gRPC's "code = Unimplemented": the operation is not served there, which
// another target serves. Python's NotImplementedError is one word and
// stays server_error.
func TestRoundFiftyFiveNotImplemented5xx(t *testing.T) {
	run(t, []tc{
		{"new-api's convert_request_failed", 500, nil, `{"error":{"code":"convert_request_failed","type":"new_api_error","param":"","message":"not implemented (request id: 202602020332379680212221VW42fOe)"}}`, false, "unknown", "phrase:not implemented"},
		{"a traceback's NotImplementedError", 500, nil, `{"error":{"message":"Traceback: raise NotImplementedError"}}`, false, "server_error", ""},
		{"a 400 is not read by this row", 400, nil, `{"error":{"message":"not implemented"}}`, false, "unknown", ""},
	})
	echo55(t, 500, "not implemented", `{"error":{"message":"Internal error while handling 'not implemented'"}}`, ServerError)
}

// (c2) "The provided request is not valid" names nothing but the request as
// a whole (LiteLLM relaying a deployment's answer to Claude Code's
// WebSearch, claude-code#43950): no proof of bad input, unknown, as
// Google's "Request contains an invalid argument." "The request body is not
// valid JSON" names what is wrong and stays bad_request.
func TestRoundFiftyFiveBareRequestNotValid(t *testing.T) {
	run(t, []tc{
		{"LiteLLM relaying", 400, nil, `{"error":{"message":"{\"message\":\"The provided request is not valid\"}. Received Model Group=claude-sonnet-4-6\nAvailable Model Group Fallbacks=None","type":"None","param":"None","code":"400"}}`, false, "unknown", ""},
		{"the request is invalid", 400, nil, `{"message":"The request is invalid."}`, false, "unknown", ""},
		{"not valid JSON stays bad_request", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"The request body is not valid JSON: expected value at line 1 column 1"}}`, false, "bad_request", ""},
		{"a named member stays bad_request", 400, nil, `{"message":"The provided temperature is not valid"}`, false, "bad_request", ""},
	})
	echo55(t, 400, "The provided request is not valid", `{"message":"Invalid value: 'The provided request is not valid'","param":"messages"}`, BadRequest)
}
