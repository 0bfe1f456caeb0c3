package classify

import "testing"

// TestBatchAndPayloadCaps: a batch over an endpoint's per-request cap (items
// or tokens per batch, inputs per request) or a payload over its byte cap is
// overflow: the request is too big for this endpoint, whatever its status
// and even where the text also says "too many tokens" (testdata/corpus:
// the third round's embeddings answers).
func TestBatchAndPayloadCaps(t *testing.T) {
	run(t, []tc{
		{"tokens in batch beats too many tokens", 400, nil, `{"error":{"message":"Too many tokens in batch: 9000 > 8192","type":"invalid_request_error"}}`, false, "overflow", "phrase:tokens…batch"},
		{"tokens per submitted batch", 400, nil, `{"detail":"The total tokens per submitted batch is limited to 1000. Your batch has 1200 tokens."}`, false, "overflow", "phrase:tokens…batch"},
		{"requests in one batch", 400, nil, `{"error":{"code":400,"message":"* BatchRequest.requests: at most 250 requests can be in one batch\n","status":"INVALID_ARGUMENT"}}`, false, "overflow", "phrase:in one batch"},
		{"too many inputs", 400, nil, `{"error":{"message":"Too many inputs. The max number of inputs is 16.","type":"invalid_request_error","param":null,"code":null}}`, false, "overflow", "phrase:too many inputs"},
		{"payload size exceeds", 400, nil, `{"error":{"code":400,"message":"Request payload size exceeds the limit: 1048576 bytes.","status":"INVALID_ARGUMENT"}}`, false, "overflow", "phrase:payload size exceeds"},
		{"a window without a batch stays context", 400, nil, `{"error":{"message":"Too many tokens: the prompt has 9000, the model takes 8192"}}`, false, "context_length", "phrase:too many tokens"},
	})
}

// TestThirdRoundPhraseFamilies: the phrase families the third corpus round
// taught, each read where its status leaves the body to decide.
func TestThirdRoundPhraseFamilies(t *testing.T) {
	run(t, []tc{
		{"extra usage spent", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"You are out of extra usage for this month."}}`, false, "quota", "phrase:extra usage"},
		{"extra usage required stays overflow", 429, nil, `{"type":"error","error":{"type":"rate_limit_error","message":"Extra usage is required for long context requests."}}`, false, "overflow", "phrase:extra usage is required"},
		{"credential scoped to another client", 400, nil, `{"error":{"message":"This key is only authorized for use with the batch service."}}`, false, "forbidden", "phrase:only authorized for use"},
		{"a maximum of N may be provided", 400, nil, `{"error":{"message":"A maximum of 8 stop sequences may be provided. Found 9."}}`, false, "bad_request", "phrase:maximum of"},
		{"a maximum of N per minute stays a rate", 429, nil, `{"error":{"message":"You may send a maximum of 60 requests per minute."}}`, false, "rate_limited", "phrase:per minute"},
		{"please provide", 400, nil, `{"error":{"code":"no_input","message":"No input given. Please provide one in the request body."}}`, false, "bad_request", "phrase:please provide"},
		{"invalid … type", 400, nil, `{"error":{"message":"invalid payload type","type":"api_error"}}`, false, "bad_request", "phrase:invalid…type"},
		{"5xx: context window is full", 500, nil, `{"error":{"message":"decode failed: the context window is full","type":"server_error"}}`, false, "context_length", "phrase:context window is full"},
	})
}

// TestThirdRoundCodesAndEnvelopes: one-api's quota code, Databricks' external
// model envelope, and what counts as a field path at a message's start.
func TestThirdRoundCodesAndEnvelopes(t *testing.T) {
	run(t, []tc{
		{"insufficient_user_quota as 403", 403, nil, `{"error":{"message":"quota is not enough","type":"relay_error","param":"","code":"insufficient_user_quota"}}`, false, "quota", "code:insufficient_user_quota"},
		{"databricks external model message", 400, nil, `{"error":"Received error from openai","external_model_message":{"error_code":"BAD_REQUEST","message":"Missing required parameter: 'messages'."}}`, false, "bad_request", "phrase:missing required"},
		{"an exception name is not a field path", 400, nil, `{"error":{"message":"litellm.BadRequestError: Something new went wrong","type":null,"param":null,"code":"400"}}`, false, "unknown", "status:400"},
		{"nor a module's exception", 400, nil, `{"error":{"message":"openai.APIException: upstream said no"}}`, false, "unknown", "status:400"},
		{"a JSON path at the start is a field path", 400, nil, `{"error":{"message":"'$.messages[0].content' is invalid.","type":"invalid_request_error","param":null,"code":null}}`, false, "bad_request", "message:field-path"},
		{"a bare JSON path too", 400, nil, `{"error":{"message":"$.tools: expected an array"}}`, false, "bad_request", "message:field-path"},
		{"a relayed field path inside a wrapper", 400, nil, `{"error":{"message":"litellm.BadRequestError: VertexException - {\"message\":\"upstream said: tools.2.input_schema: unknown keyword\"}","code":"400"}}`, false, "bad_request", "message:field-path"},
		{"a file name is not a field path", 400, nil, `{"error":{"message":"could not open messages.json: denied"}}`, false, "unknown", "status:400"},
		{"a dotted field path still is one", 400, nil, `{"error":{"message":"tools.3.custom.input_schema: not allowed here"}}`, false, "bad_request", "message:field-path"},
	})
}

// TestModelAccessAndParameterFamilies: the families the third round's
// held-out batch (gathered after the rules above) taught: a model name the
// endpoint calls invalid, a parameter the model does not take, and a
// snake_case field path at a message's start followed by a quoted value.
func TestModelAccessAndParameterFamilies(t *testing.T) {
	run(t, []tc{
		{"model name is invalid", 400, nil, `{"error":{"code":400,"message":"You don't have access to this model or the model name is invalid","status":"INVALID_ARGUMENT"}}`, false, "unavailable", "phrase:model name is invalid"},
		{"model id is invalid", 400, nil, `{"error":{"message":"The model ID is invalid for this endpoint."}}`, false, "unavailable", "phrase:model id is invalid"},
		{"does not support the X parameter", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"This model does not support the effort parameter."}}`, false, "bad_request", "phrase:not support…parameter"},
		{"doesn't support parameter", 400, nil, `{"error":{"message":"This endpoint doesn't support the 'logprobs' parameter."}}`, false, "bad_request", "phrase:doesn't support…parameter"},
		{"a capability gap stays unknown", 400, nil, `{"error":{"message":"This model does not support image input."}}`, false, "unknown", "phrase:does not support"},
		{"snake path and quoted value", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"output_config.effort 'max' is not supported when thinking is disabled on this model."}}`, false, "bad_request", "message:field-path"},
		{"a host name is not a field path", 400, nil, `{"error":{"message":"api.example.com 'default' is not supported here"}}`, false, "unknown", "phrase:is not supported"},
	})
}
