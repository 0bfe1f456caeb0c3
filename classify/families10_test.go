package classify

import "testing"

// The fourteenth round (testdata/corpus/README.md): a field the request
// lacks named with a quoted name between "missing" and "field", and the
// vendors' codes that declare the request's parameters invalid. Each table
// names what a rule covers and, after it, what it must not catch.

// TestRoundFourteenRules: each positive case failed before its rule.
func TestRoundFourteenRules(t *testing.T) {
	run(t, []tc{
		// A missing field named in backquotes, longer than the old gap.
		{"missing quoted field", 400, nil, `{"error":{"message":"Missing ` + "`reasoning_content`" + ` field in the assistant message at message index 112.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, false, "bad_request", "phrase:missing `"},
		{"missing dotted field", 400, nil, `{"error":{"message":"Missing the stream_options.include_usage field"}}`, false, "bad_request", "phrase:missing…field"},
		// The request's parameters declared invalid by a code.
		{"type request_params_invalid", 400, nil, `{"error":{"message":"Unrecognized chat message.","type":"request_params_invalid"}}`, false, "bad_request", "type:request_params_invalid"},
		{"code invalid_params", 400, nil, `{"error":{"message":"bad request","code":"invalid_params"}}`, false, "bad_request", "code:invalid_params"},
		// Must not catch: "missing" and "field" in clauses too far apart,
		// a missing field in a 5xx (the server's own), the code beside a
		// capability gap's wording (the phrase decides), the code in a 429
		// or a 5xx (their status decides).
		{"missing far from field", 400, nil, `{"error":{"message":"Something is missing from this conversation history, please retry or ask support about the field"}}`, false, "unknown", ""},
		{"missing field in a 500", 500, nil, `{"error":{"message":"Missing ` + "`reasoning_content`" + ` field in the upstream answer"}}`, false, "server_error", ""},
		{"params code beside a capability gap", 400, nil, `{"error":{"message":"model x does not support tools","type":"request_params_invalid"}}`, false, "unknown", ""},
		{"params code in a 429", 429, nil, `{"error":{"message":"Too many requests","type":"request_params_invalid"}}`, false, "rate_limited", ""},
		{"params code in a 503", 503, nil, `{"error":{"message":"busy","code":"invalid_params"}}`, false, "server_error", ""},
	})
}

// TestAllowanceSpentInChinese: an allowance (额度, 配额) insufficient or used
// up is quota under a 403 as under a 400 or 429, as 余额不足 already was;
// one-api/new-api write "用户额度不足, 剩余额度: ¥0.000000" and
// "该令牌额度已用尽" (a token's allowance) with a 403. Each failed before.
func TestAllowanceSpentInChinese(t *testing.T) {
	run(t, []tc{
		{"user allowance", 403, nil, `{"error":{"message":"用户额度不足, 剩余额度: ¥0.000000","type":"new_api_error"}}`, false, "quota", "phrase:额度不足"},
		{"token allowance used up", 403, nil, `{"error":{"message":"该令牌额度已用尽","type":"one_api_error"}}`, false, "quota", "phrase:额度已用尽"},
		{"quota insufficient", 429, nil, `{"error":{"message":"配额不足"}}`, false, "quota", "phrase:配额不足"},
		{"free allowance used", 400, nil, `{"error":{"message":"免费额度已用完，请开通付费"}}`, false, "quota", "phrase:额度已用完"},
		// Must not catch: a rate limit's window (频率) or a 5xx's own words.
		{"request frequency", 429, nil, `{"error":{"message":"请求频率超限，请稍后再试"}}`, false, "rate_limited", ""},
	})
}

// TestResponsesContentFilter: a Responses API answer that stopped for
// content_filter with nothing in its output is a refusal, whole or as the
// stream's response.incomplete event, as a chat answer's finish_reason
// content_filter with no content is (OpenAI's API reference, the Response
// object: incomplete_details.reason is max_output_tokens or
// content_filter). Each failed before: the answer read as a success.
func TestResponsesContentFilter(t *testing.T) {
	run(t, []tc{
		{"whole, empty output", 200, nil, `{"id":"resp_1","object":"response","status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[]}`, false, "refusal", "openai:incomplete_details.reason=content_filter"},
		{"stream event", 200, nil, "event: response.incomplete\ndata: {\"type\":\"response.incomplete\",\"sequence_number\":3,\"response\":{\"id\":\"resp_1\",\"object\":\"response\",\"status\":\"incomplete\",\"incomplete_details\":{\"reason\":\"content_filter\"},\"output\":[]}}\n\n", true, "refusal", "openai:incomplete_details.reason=content_filter"},
		// Must not catch: output that carries text or a call (a partial
		// answer, as for chat), another reason, a filter reason elsewhere.
		{"partial text", 200, nil, `{"object":"response","status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Once upon"}]}]}`, false, "ok", ""},
		{"a function call", 200, nil, `{"object":"response","status":"incomplete","incomplete_details":{"reason":"content_filter"},"output":[{"type":"function_call","call_id":"call_1","name":"f","arguments":"{}"}]}`, false, "ok", ""},
		{"max_output_tokens", 200, nil, `{"object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[]}`, false, "ok", ""},
		{"reason in metadata", 200, nil, `{"object":"response","status":"completed","metadata":{"reason":"content_filter"},"output":[]}`, false, "ok", ""},
	})
}

// TestGeminiFinishesWithNoContent: the rest of Gemini's FinishReason enum
// (the GenAI SDKs' FinishReason: LANGUAGE, IMAGE_OTHER, TOO_MANY_TOOL_CALLS,
// MALFORMED_RESPONSE, MISSING_THOUGHT_SIGNATURE), ending a candidate with no
// content, is an answer that cannot be used and that another vendor may
// give: unknown (moves on, cools nothing), as OTHER and NO_IMAGE are. Each
// read as a success before (an empty "stop" answer). With content, the
// answer stands.
func TestGeminiFinishesWithNoContent(t *testing.T) {
	var cases []tc
	for _, r := range []string{"LANGUAGE", "IMAGE_OTHER", "TOO_MANY_TOOL_CALLS", "MALFORMED_RESPONSE", "MISSING_THOUGHT_SIGNATURE"} {
		cases = append(cases,
			tc{r, 200, nil, `{"candidates":[{"finishReason":"` + r + `","index":0}],"usageMetadata":{"promptTokenCount":9,"totalTokenCount":9}}`, false, "unknown", "gemini:finishReason=" + r},
			tc{r + " with content", 200, nil, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"finishReason":"` + r + `","index":0}]}`, false, "ok", ""})
	}
	cases = append(cases, tc{"relayed TOO_MANY_TOOL_CALLS", 200, nil, `{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"TOO_MANY_TOOL_CALLS"}]}`, false, "unknown", "openai:finish_reason=TOO_MANY_TOOL_CALLS"})
	run(t, cases)
}

// TestFinishReasonErrorWithNothing: OpenRouter normalises a generation that
// failed to finish_reason "error" (its API reference lists stop, length,
// tool_calls, content_filter and error). With nothing generated and no
// error member it is no answer: unknown, where it read as an empty success.
// With content it is a partial answer, which stands; with an error member
// that member decides (an in-band error, server_error in the corpus).
func TestFinishReasonErrorWithNothing(t *testing.T) {
	run(t, []tc{
		{"empty, error", 200, nil, `{"id":"gen-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"error"}],"usage":{"prompt_tokens":10,"completion_tokens":0,"total_tokens":10}}`, false, "unknown", "openai:finish_reason=error"},
		{"text, error", 200, nil, `{"id":"gen-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Partial"},"finish_reason":"error"}]}`, false, "ok", ""},
	})
}

// TestRoundFifteenRules: the rules of corpus round 15 (classify/testdata/
// corpus/README.md, "Fifteenth round"), each positive case failing before
// its rule, with the near-misses each must not catch.
func TestRoundFifteenRules(t *testing.T) {
	run(t, []tc{
		// A server that does not serve this API at all, in a 5xx as in a
		// 4xx (llama-server without --embeddings answers 501).
		{"server without embeddings, 501", 501, nil, `{"error":{"code":501,"message":"This server does not support embeddings. Start it with ` + "`--embeddings`" + `","type":"not_supported_error"}}`, false, "unknown", "phrase:does not support embedding"},
		{"model without the chat API, 500", 500, nil, `{"error":{"message":"The model does not support Chat Completions API"}}`, false, "unknown", "phrase:model does not support…api"},
		// Must not catch: a feature the model lacks stays a capability gap.
		{"model without tools, 500", 500, nil, `{"error":{"message":"this model does not support tools"}}`, false, "unknown", "phrase:does not support"},
		{"server without images, 501", 501, nil, `{"error":{"code":501,"message":"image input is not supported - hint: if this is unexpected, you may need to provide the mmproj","type":"not_supported_error"}}`, false, "unknown", "phrase:is not supported"},

		// The model Detour sent is malformed or not among the names the
		// endpoint serves: the operator's configured model, never the
		// client's (Detour sets "model" itself).
		{"model name format", 400, nil, `{"error":{"code":400,"message":"* GenerateContentRequest.model: unexpected model name format\n","status":"INVALID_ARGUMENT"}}`, false, "unavailable", "phrase:model name format"},
		{"model names are", 400, nil, `{"error":{"message":"The supported API model names are deepseek-v4-pro or deepseek-v4-flash, but you passed bad model.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`, false, "unavailable", "phrase:model names are"},
		// A message role the upstream does not take: the conversation the
		// client sent.
		{"valid role", 400, nil, `{"error":{"code":400,"message":"Please use a valid role: user, model.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:valid role"},
		// Must not catch: a field path to another model (a tool's), the
		// IAM wording of a role, a 5xx.
		{"tool's model field", 400, nil, `{"error":{"message":"tools[0].model: Input should be a valid string"}}`, false, "bad_request", "message:field-path"},
		{"IAM role", 403, nil, `{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}`, false, "forbidden", "phrase:does not have permission"},

		// What a 410 says is gone is read, as a 404's is: a feature of the
		// request (xAI's retired Live Search, sent as search_parameters) is
		// no reason to cool the endpoint for every other request.
		{"410 feature deprecated", 410, nil, `{"error":"Live search is deprecated. Please switch to the Agent Tools API: https://docs.x.ai/docs/guides/tools/overview"}`, false, "unknown", "phrase:is deprecated"},
		{"400 parameter no longer supported", 400, nil, `{"error":{"message":"The functions parameter is no longer supported."}}`, false, "unknown", "phrase:no longer supported"},
		// Must not catch: a model, an endpoint or an API version that is
		// gone, or a 410 that names nothing.
		{"410 model end of life", 410, nil, `{"type":"about:blank","title":"Gone","status":410,"detail":"The model 'qwen/qwen3-coder-480b-a35b-instruct' has reached its end of life on 2026-06-11T00:00:00Z and is no longer available."}`, false, "unavailable", "status:410"},
		{"410 bare", 410, nil, ``, false, "unavailable", "status:410"},
		{"410 gone page", 410, nil, `Gone`, false, "unavailable", "status:410"},
		{"endpoint no longer supported", 404, nil, `{"error":{"message":"This endpoint is no longer supported."}}`, false, "unavailable", "phrase:no longer supported"},
		{"api version no longer supported", 400, nil, `{"error":{"code":"UnsupportedApiVersion","message":"The API version 2023-03-15-preview is no longer supported."}}`, false, "unavailable", "phrase:no longer supported"},
		{"model deprecated 410", 410, nil, `{"error":{"message":"The model grok-beta is deprecated. Please use grok-3."}}`, false, "unavailable", "status:410"},
		{"model no longer available 404", 404, nil, `{"error":{"code":404,"message":"This model models/gemini-2.0-flash is no longer available. Please update your code to use a newer model.","status":"NOT_FOUND"}}`, false, "unavailable", "phrase:model…no longer"},
	})
}

// TestGoneNamesTheModel: "X is deprecated", "X is no longer supported"
// where X is the model Detour sent is the endpoint's model gone, however
// the sentence words it, not a feature of the request: without the model
// it read as a feature, and a retired model never cooled.
func TestGoneNamesTheModel(t *testing.T) {
	for _, c := range []struct {
		status      int
		body, model string
		class       Class
		evidence    string
	}{
		{404, `{"error":{"message":"grok-beta is deprecated. Please use grok-3."}}`, "grok-beta", Unavailable, "phrase:is deprecated"},
		{400, `{"error":{"message":"grok-beta is deprecated. Please use grok-3."}}`, "grok-beta", Unavailable, "phrase:is deprecated"},
		{400, `{"error":{"message":"claude-2.0 is no longer supported"}}`, "claude-2.0", Unavailable, "phrase:no longer supported"},
		{410, `{"error":"grok-beta is deprecated. Please use grok-3."}`, "grok-beta", Unavailable, "status:410"},
		// A display name with its version: a model, whatever was sent.
		{404, `{"error":{"code":404,"message":"Gemini 1.0 Pro Vision has been deprecated on July 12, 2024.","status":"NOT_FOUND"}}`, "", Unavailable, "phrase:has been deprecated"},
		{410, `{"error":"Claude 2 is no longer supported."}`, "", Unavailable, "status:410"},
		// Must not catch: a feature, beside the model elsewhere or not at all;
		// a dated beta or a field's index.
		{400, `{"error":{"message":"` + "`web-search-2025-03-05`" + ` is deprecated."}}`, "claude-x", Unknown, "phrase:is deprecated"},
		{410, `{"error":"tools[0].search_parameters is deprecated"}`, "grok-4", Unknown, "phrase:is deprecated"},
		{410, `{"error":"Live search is deprecated. Please switch to the Agent Tools API"}`, "grok-4", Unknown, "phrase:is deprecated"},
		{400, `{"error":{"message":"For grok-4: live search is deprecated."}}`, "grok-4", Unknown, "phrase:is deprecated"},
		{400, `{"error":{"message":"The functions parameter is no longer supported."}}`, "gpt-4o", Unknown, "phrase:no longer supported"},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Dialect: OpenAI, Model: c.model,
			Request: []byte(`{"model":"` + c.model + `","messages":[{"role":"user","content":"hi"}]}`)})
		if v.Class != c.class || v.Evidence != c.evidence {
			t.Errorf("%d %s (model %s): %s (%s), want %s (%s)", c.status, c.body, c.model, v.Class, v.Evidence, c.class, c.evidence)
		}
	}
}

// TestRoundSixteenRules: the rules of corpus round 16 (classify/testdata/
// corpus/README.md, "Sixteenth round"), each positive case failing before
// its rule, with the near-misses each must not catch.
func TestRoundSixteenRules(t *testing.T) {
	run(t, []tc{
		// A gone model offered as one cause among others the request may
		// hold ("… or your request did not allow prompt caching") proves
		// nothing about the model: one client's cache points cooled Bedrock
		// for a day.
		{"unsupported model or the request", 400, nil, `{"message":"You invoked an unsupported model or your request did not allow prompt caching. See the documentation for more information."}`, false, "unknown", "status:400"},
		{"unsupported model alone", 400, nil, `{"message":"Unsupported model gpt-5-foo, please use models API"}`, false, "unavailable", "phrase:unsupported model"},
		{"model does not exist or no access", 404, nil, `{"error":{"message":"The model gpt-x does not exist or you do not have access to it.","code":"model_not_found"}}`, false, "unavailable", "code:model_not_found"},
		// Fetching the client's file timed out: its URL, not the
		// endpoint's timer (a slow image host would cool the endpoint).
		{"download timed out", 400, nil, `{"error":{"message":"<400> InternalError.Algo.InvalidParameter: Download multimodal file timed out","type":"invalid_request_error","param":null,"code":"invalid_parameter_error"}}`, false, "unknown", "phrase:download…timed out"},
		{"timed out fetching", 400, nil, `{"error":{"message":"Timed out while fetching the image URL"}}`, false, "unknown", "phrase:timed out…fetch"},
		{"timed out alone", 400, nil, `{"error":{"message":"The request timed out"}}`, false, "timeout", "phrase:timed out"},
		// A feature not enabled for the organisation: access not granted.
		{"not enabled for the organization", 400, nil, `{"error":{"message":"vision is not enabled for this organization","code":""}}`, false, "forbidden", "phrase:not enabled for… org"},
		{"not enabled for the account", 400, nil, `{"error":{"message":"Web search is not enabled for your account"}}`, false, "forbidden", "phrase:not enabled for…account"},
		// A remote MCP server the request declared: the client's connector.
		{"mcp server token", 400, nil, `{"type":"invalid_request_error","message":"Invalid authorization token for MCP server 'notion'. Please check your token and try again."}`, false, "bad_request", "phrase:mcp server"},
		{"mcp server timed out", 400, nil, `{"error":{"message":"MCP server 'docs' timed out after 30s"}}`, false, "bad_request", "phrase:mcp server"},
		// A key rejected in other words, as a 403.
		{"check the api-key you provided", 403, nil, `{"error":"please check the api-key you provided"}`, false, "auth", "phrase:check the api-key you provided"},
		{"api key lacks the model", 403, nil, `{"error":"The API key you provided does not have access to model x"}`, false, "forbidden", ""},
		// The provider's moderation relayed inside a 5xx, in a 200's choice.
		{"relayed moderation in a 502", 200, nil, `{"choices":[{"index":0,"message":{"role":"assistant","content":"Canada is"},"finish_reason":null,"error":{"code":502,"message":"Upstream error from Alibaba: <400> InternalError.Algo.DataInspectionFailed: Output data may contain inappropriate content.","metadata":{"error_type":"provider_unavailable"}}}]}`, false, "refusal", "phrase:datainspectionfailed"},
		{"relayed outage in a 502", 200, nil, `{"choices":[{"index":0,"message":{"role":"assistant","content":"Canada is"},"finish_reason":null,"error":{"code":502,"message":"Upstream error from Alibaba: connection reset","metadata":{"error_type":"provider_unavailable"}}}]}`, false, "server_error", ""},
		{"content filter service down", 503, nil, `{"error":{"message":"The content filter service is unavailable, try again later"}}`, false, "server_error", ""},
		// Vertex's Model Armor withheld the answer; a call to a function
		// the request never declared.
		{"model armor finish", 200, nil, `{"candidates":[{"finishReason":"MODEL_ARMOR","finishMessage":"The response violated Responsible AI Safety settings (Hate Speech, Harassment, Dangerous) filters."}]}`, false, "refusal", "gemini:finishReason=MODEL_ARMOR"},
		{"model armor beside text", 200, nil, `{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"finishReason":"MODEL_ARMOR"}]}`, false, "ok", ""},
		{"unexpected tool call beside its call", 200, nil, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"list_files","args":{}}}]},"finishReason":"UNEXPECTED_TOOL_CALL","finishMessage":"Unexpected tool call: Model tried to call an undeclared function: list_files"}]}`, false, "unknown", "gemini:finishReason=UNEXPECTED_TOOL_CALL"},
		{"declared call", 200, nil, `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"get_file","args":{}}}]},"finishReason":"STOP"}]}`, false, "ok", ""},
		{"not enabled for a model", 400, nil, `{"error":{"code":400,"message":"Function calling is not enabled for models/gemini-2.0-flash-thinking-exp","status":"INVALID_ARGUMENT"}}`, false, "unknown", ""},
	})
}

func TestUnexpectedToolCallIndex(t *testing.T) {
	if r := toolFailures[unexpectedToolCall].reason; r != "UNEXPECTED_TOOL_CALL" {
		t.Fatalf("toolFailures[unexpectedToolCall] is %s", r)
	}
}

// TestRoundSeventeenRules: the rules of corpus round 17 (classify/testdata/
// corpus/README.md, "Seventeenth round"), each positive case failing before
// its rule, with the near-misses each must not catch.
func TestRoundSeventeenRules(t *testing.T) {
	run(t, []tc{
		// A code that says the credits or the balance are insufficient, in
		// a spelling no table lists, behind Google's generic 429.
		{"insufficient credits reason", 429, nil, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"INSUFFICIENT_G1_CREDITS_BALANCE","metadata":{"error_number":"2008"}}]}}`, false, "quota", "gemini:reason=insufficient*(credit|balance|funds|quota)"},
		{"insufficient account balance code", 400, nil, `{"error":{"message":"request failed","code":"INSUFFICIENT_ACCOUNT_BALANCE"}}`, false, "quota", "code:insufficient*(credit|balance|funds|quota)"},
		// A spend cap set on the key.
		{"key limit exceeded", 403, nil, `{"error":{"message":"Key limit exceeded (total limit). Manage it using https://openrouter.ai/settings/keys","code":403}}`, false, "quota", "phrase:key limit exceeded"},
		// Terms an admin must accept before the account may use the model.
		{"model terms required", 400, nil, `{"error":{"message":"The model ` + "`playai-tts`" + ` requires terms acceptance. Please have the org admin accept the terms at https://console.groq.com/playground?model=playai-tts","type":"invalid_request_error","code":"model_terms_required"}}`, false, "forbidden", "code:model_terms_required"},
		{"accept the terms", 403, nil, `{"error":{"message":"You must accept the terms of service for this model before using it"}}`, false, "forbidden", ""},
		// The model serves another API only.
		{"model only supported in another API", 404, nil, `{ "error": { "message": "This model is only supported in v1/responses and not in v1/chat/completions.", "type": "invalid_request_error", "param": "model", "code": null } }`, false, "unknown", "phrase:model is only supported in"},
		{"a feature only supported in another API", 400, nil, `{"error":{"message":"logprobs is only supported in v1/chat/completions."}}`, false, "unknown", ""},
		// A deprecation whose sentence names the model by a display name with
		// its version is the model's.
		{"deprecated, switch to a different model", 404, nil, `{"error":{"code":404,"message":"Gemini 1.0 Pro Vision has been deprecated on July 12, 2024. Consider switching to different model, for example gemini-1.5-flash.","status":"NOT_FOUND"}}`, false, "unavailable", "phrase:has been deprecated"},
		{"deprecated, switch to another API", 410, nil, `{"error":"Live search is deprecated. Please switch to the Agent Tools API"}`, false, "unknown", "phrase:is deprecated"},
		// Must not catch: a throttle's reason, a per-minute limit, capacity.
		{"rate limit reason", 429, nil, `{"error":{"code":429,"message":"Resource has been exhausted (e.g. check quota).","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"RATE_LIMIT_EXCEEDED"}]}}`, false, "rate_limited", ""},
		{"insufficient capacity code", 429, nil, `{"error":{"message":"try later","code":"insufficient_capacity"}}`, false, "rate_limited", ""},
		{"rate limit exceeded", 403, nil, `{"error":{"message":"Rate limit exceeded: 20 requests per minute"}}`, false, "rate_limited", ""},
	})
}

// TestStoredThingMayNotExist: a 403 that says the caller may not access a
// stored thing the request refers to "or it may not exist" (Gemini's File
// behind fileData.fileUri) is the client's reference, not access the
// endpoint lacks: counted as forbidden, a client sending a bogus file could
// cool the endpoint. The endpoint's own permission answers stay forbidden.
func TestStoredThingMayNotExist(t *testing.T) {
	req := []byte(`{"contents":[{"parts":[{"fileData":{"fileUri":"xxxx"}}]}]}`)
	for _, c := range []struct {
		body  string
		req   []byte
		class Class
	}{
		{`{"error":{"code":403,"message":"You do not have permission to access the File xxxx or it may not exist.","status":"PERMISSION_DENIED"}}`, req, BadRequest},
		{`{"error":{"code":403,"message":"You do not have permission to access the File xxxx or it may not exist.","status":"PERMISSION_DENIED"}}`, []byte(`{"contents":[{"parts":[{"text":"hi"}]}]}`), Forbidden},
		{`{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}`, req, Forbidden},
		{`{"error":{"code":403,"message":"Permission denied on resource project my-project.","status":"PERMISSION_DENIED"}}`, req, Forbidden},
	} {
		v := Classify(Response{Status: 403, Body: []byte(c.body), Dialect: Gemini, Model: "gemini-2.0-flash-exp", Request: c.req})
		if v.Class != c.class {
			t.Errorf("%s with %s: %s (%s), want %s", c.body, c.req, v.Class, v.Evidence, c.class)
		}
	}
}

// TestRoundEighteenRules: the rules of corpus round 18 (classify/testdata/
// corpus/README.md, "Eighteenth round"), each positive case failing before
// its rule, with the near-misses each must not catch.
func TestRoundEighteenRules(t *testing.T) {
	run(t, []tc{
		// A gateway's guardrail block, its words under an error.message object.
		{"guardrail policy", 400, nil, `{"error":{"message":{"error":"Violated guardrail policy","bedrock_guardrail_response":{"action":"GUARDRAIL_INTERVENED"}},"type":"None","param":"None","code":"400"}}`, false, "refusal", "phrase:violated guardrail"},
		{"moderation policy", 400, nil, `{"error":{"message":{"error":"Violated OpenAI moderation policy","moderation_result":{"flagged":true}},"type":"None","param":"None","code":"400"}}`, false, "refusal", "phrase:violated…moderation policy"},
		{"content safety policy", 400, nil, `{"error":{"message":"Violated content safety policy"}}`, false, "refusal", "phrase:violated content safety"},
		// A credential the resource rejects, in other words, as a 403.
		{"authentication error", 403, nil, `{"success":false,"errors":[{"code":10000,"message":"Authentication error"}]}`, false, "auth", "phrase:authentication error"},
		{"key authentication disabled", 403, nil, `{"error": {"code": "AuthenticationTypeDisabled", "message": "Key based authentication is disabled for this resource."}}`, false, "auth", "code:authenticationtypedisabled"},
		{"mcp authentication error", 400, nil, `{"error":{"message":"Authentication error for MCP server 'notion'"}}`, false, "bad_request", "phrase:mcp server"},
		// The endpoint's size and batch caps.
		{"total text bytes", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"too many total text bytes: 17929476 > 16000000"}}`, false, "overflow", "phrase:too many…bytes"},
		{"batch size larger than", 400, nil, `{"error":{"message":"<400> InternalError.Algo.InvalidParameter: batch size is invalid, it should not be larger than 10.: input.contents","type":"invalid_request_error","param":null,"code":"InvalidParameter"}}`, false, "overflow", "phrase:batch size…larger than"},
		{"batch size of the wrong type", 400, nil, `{"error":{"message":"batch_size must be a positive integer"}}`, false, "bad_request", ""},
		// A tool the request names that its own tools do not hold.
		{"tool not found in available tools", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"Tool reference 'lookup_documents' not found in available tools"}}`, false, "bad_request", "phrase:not found in available tools"},
		{"model not found", 404, nil, `{"type":"error","error":{"type":"not_found_error","message":"model: claude-x"}}`, false, "unavailable", ""},
		// A gateway's keyword guardrail.
		{"content blocked", 400, nil, `{"error":{"message":"Content blocked: keyword 'durian' detected","type":"None","param":"None","code":"400"}}`, false, "refusal", "phrase:content blocked"},
		{"key blocked", 403, nil, `{"error":{"message":"Your API key has been blocked"}}`, false, "auth", ""},
		// Must not catch: a gateway's own limit worded as a policy, a
		// guardrail service that failed.
		{"rate limit policy", 429, nil, `{"error":{"message":"Violated rate limit policy: 10 requests per minute"}}`, false, "rate_limited", ""},
		{"guardrail api down", 500, nil, `{"error":{"message":"Guardrail API failed: connection refused"}}`, false, "server_error", ""},
	})
}

// TestRoundTwentyRules: the rules of corpus round 20 (classify/testdata/
// corpus/README.md, "Twentieth round"), each positive case failing before
// its rule, with the near-misses each must not catch.
func TestRoundTwentyRules(t *testing.T) {
	run(t, []tc{
		// A proxy's connection to its upstream that timed out, in a 5xx.
		{"envoy connection timeout", 503, nil, `upstream connect error or disconnect/reset before headers. reset reason: connection timeout`, false, "timeout", "phrase:connection timeout"},
		{"envoy connection termination", 503, nil, `upstream connect error or disconnect/reset before headers. reset reason: connection termination`, false, "server_error", ""},
		// A timeout fetching what the request points to, worded as a noun.
		{"timeout while downloading", 400, nil, `{"error":{"message":"Timeout while downloading https://example.com/cat.png","type":"invalid_request_error"}}`, false, "unknown", "phrase:timeout…download"},
		// The endpoint's caps on a list and on a schema's complexity.
		{"at most N can be specified", 400, nil, `{"error":{"code":400,"message":"* GenerateContentRequest.tools[0].function_declarations: [FIELD_INVALID] At most 512 function declarations can be specified.","status":"INVALID_ARGUMENT"}}`, false, "overflow", "phrase:at most…can be specified"},
		{"too many states", 400, nil, `{"error":{"code":400,"message":"The specified schema produces a constraint that has too many states for serving. Typical causes of this error are schemas with lots of text.","status":"INVALID_ARGUMENT"}}`, false, "overflow", "phrase:too many states"},
		{"at most characters on a field", 400, nil, `{"error":{"message":"tools[0].function.name: must be at most 64 characters"}}`, false, "bad_request", ""},
		// Settings of the request that exclude each other or lack a partner.
		{"should not be set", 400, nil, `{"error":{"code":400,"message":"Tool config, tools and system instruction should not be set in the request when using cached content.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:should not be set in the request"},
		{"is set without", 400, nil, `{"error":{"code":400,"message":"function_calling_config is set without function_declarations.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:is set without"},
		{"capability gap stays", 400, nil, `{"error":{"code":400,"message":"Function calling is not enabled for models/gemini-2.0-flash-thinking-exp","status":"INVALID_ARGUMENT"}}`, false, "unknown", ""},
		// What a self-hosted server lacks: a chat template (every chat
		// request fails there), a parameter or a combination (in a 500), a
		// vision add-on (in a 200).
		{"must provide a chat template", 400, nil, `{"object":"error","message":"As of transformers v4.44, default chat template is no longer allowed, so you must provide a chat template if the tokenizer does not define one.","type":"BadRequestError","param":null,"code":400}`, false, "unavailable", "phrase:must provide a chat template"},
		{"unsupported param in a 500", 500, nil, `{"code":500,"message":"Unsupported param: tools","type":"server_error"}`, false, "unknown", "phrase:unsupported param"},
		{"cannot use tools in a 500", 500, nil, `{"error":{"code":500,"message":"Cannot use tools with stream","type":"server_error"}}`, false, "unknown", "phrase:cannot use tools"},
		{"add-on not loaded in a 200", 200, nil, `{"error":{"message":"Error in iterating prediction stream: ValueError: Vision add-on is not loaded, but images were provided for processing"}}`, false, "unknown", "phrase:add-on is not loaded"},
		{"a 500 that names no request part", 500, nil, `{"error":{"message":"CUDA out of memory"}}`, false, "server_error", ""},
		// The model Detour sent is not one this relay knows.
		{"incorrect model id", 400, nil, `{"error":{"message":"Incorrect model ID. Please request to view the model page or you do not have permission to use this model","type":"Aihubmix_api_error"}}`, false, "unavailable", "phrase:incorrect model id"},
		{"incorrect model id of a tool's model", 400, nil, `{"error":{"message":"Incorrect model ID","param":"tools[0].model"}}`, false, "bad_request", ""},
		// Prose in a param is the upstream's words; a cap the owner set.
		{"prose param names the model", 400, nil, `{"error":{"code":"400","message":"Param Incorrect","param":"Not supported model bad model","type":"invalid_request_error"}}`, false, "unavailable", "phrase:not supported model"},
		{"not supported model for a feature", 400, nil, `{"error":{"message":"Not supported model for this feature: logprobs"}}`, false, "unknown", ""},
		{"set limit exceeded", 429, nil, `{"code":"SetLimitExceeded","message":"Your account has reached the set inference limit for the doubao model, and the model service has been paused.","type":"TooManyRequests"}`, false, "quota", "code:setlimitexceeded"},
		{"endpoint rpm exceeded", 429, nil, `{"error":{"code":"RateLimitExceeded.EndpointRPMExceeded","message":"The request rate exceeds the RPM limit","type":"TooManyRequests"}}`, false, "rate_limited", ""},
		// No free allowance at all, and a credential whose scope is short.
		{"no free quota tier", 429, nil, `{"error":{"code":429,"message":"Gemini 3 Pro Preview doesn't have a free quota tier. Please use Gemini 2.5 Pro instead.","status":"RESOURCE_EXHAUSTED"}}`, false, "forbidden", "phrase:have a free quota tier"},
		{"free tier per minute", 429, nil, `{"error":{"code":429,"message":"Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaId":"GenerateRequestsPerMinutePerProjectPerModel-FreeTier"}]}]}}`, false, "rate_limited", ""},
		{"token scope insufficient", 403, nil, `{"error":{"code":403,"message":"Request had insufficient authentication scopes.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT"}]}}`, false, "auth", "gemini:reason=ACCESS_TOKEN_SCOPE_INSUFFICIENT"},
	})
}
