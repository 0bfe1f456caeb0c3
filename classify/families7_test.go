package classify

import "testing"

// The seventh held-out round (testdata/corpus/README.md): a vendor's own
// status envelope inside a 200, request-signing and Chinese authentication
// wording, MiniMax's documented base_resp codes, a missing-parameter code and
// wording, and "should be" range wording. Each table names what a rule
// covers and, after it, what it must not catch.

// TestStatusEnvelope: a top-level integer status (or code) of 400 or more
// beside a top-level message, in a body with no error member and no answer,
// is an error whatever the HTTP status — iFlow's {status,msg,body} in a 200.
// Its class comes from the message, or unknown where the message says
// nothing (a vendor's status is not an HTTP status).
func TestStatusEnvelope(t *testing.T) {
	run(t, []tc{
		{"string status and msg in a 200", 200, nil, `{"status":"434","msg":"Invalid apiKey，get your apiKey: https://example.cn/","body":null}`, false, "auth", "phrase:invalid apikey"},
		{"numeric status, access key blocked", 200, nil, `{"status":438,"msg":"Access to the current AK has been blocked due to unauthorized requests","body":null}`, false, "auth", "phrase:ak has been blocked"},
		{"top-level code and msg in a 200", 200, nil, `{"code":10003,"msg":"rate limit exceeded, retry later","data":null}`, false, "rate_limited", "phrase:rate limit"},
		{"string code and message in a 200", 200, nil, `{"code":"40001","message":"API key is invalid"}`, false, "auth", "phrase:api key is invalid"},
		{"status that says nothing stays unknown", 200, nil, `{"status":"500","msg":"something odd happened","body":null}`, false, "unknown", "body:status"},
		{"inside a stream", 200, nil, `{"status":"434","msg":"Invalid apiKey"}`, true, "auth", "phrase:invalid apikey"},
		// The msg of the envelope is read in a 4xx too.
		{"envelope msg in a 400", 400, nil, `{"code":10086,"msg":"invalid apikey"}`, false, "auth", "phrase:invalid apikey"},
		// Must not catch: a success status, a code below 400, an answer
		// beside the status, no message, a non-integer status.
		{"status completed with output", 200, nil, `{"id":"resp_1","object":"response","status":"completed","output":[{"type":"message","content":[{"type":"output_text","text":"hi"}]}]}`, false, "ok", ""},
		{"code 0 success with data", 200, nil, `{"code":0,"msg":"success","data":{"text":"hello"}}`, false, "ok", ""},
		{"status 200 ok", 200, nil, `{"status":200,"msg":"ok"}`, false, "ok", ""},
		{"small code is no error", 200, nil, `{"code":1,"msg":"failed"}`, false, "ok", ""},
		{"status beside choices", 200, nil, `{"status":"434","msg":"Invalid apiKey","choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}`, false, "ok", ""},
		{"status beside data", 200, nil, `{"status":"500","msg":"partial","data":{"items":[1,2]}}`, false, "ok", ""},
		{"status beside text", 200, nil, `{"status":404,"message":"not found","text":"The page was not found in the book."}`, false, "ok", ""},
		{"status with no message", 200, nil, `{"status":"434","body":null}`, false, "ok", ""},
		{"ollama message object", 200, nil, `{"model":"m","message":{"role":"assistant","content":"status 500"},"done":true,"status":500}`, false, "ok", ""},
		{"non-integer status", 200, nil, `{"status":"failed-ish","msg":"Invalid apiKey"}`, false, "ok", ""},
	})
}

// TestStatusEnvelopeEcho: the envelope is proven by its structure, so a
// message that only quotes the client's text still fails the answer, but
// that text decides no class.
func TestStatusEnvelopeEcho(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"Explain: Invalid apiKey"}]}`)
	v := Classify(Response{Status: 200, Body: []byte(`{"status":"434","msg":"Invalid apiKey","body":null}`), Request: req})
	if !v.Failed || v.Class != Unknown || v.Evidence != "body:status+echo" {
		t.Fatalf("got %+v, want unknown body:status+echo", v)
	}
}

// TestSignatureAndCNAuth: a request signature the provider calculated
// otherwise, and Chinese "authentication failed" wording, are the
// credential's (auth), even in a 200's error or a 403.
func TestSignatureAndCNAuth(t *testing.T) {
	run(t, []tc{
		{"hunyuan-like error in a 200", 200, nil, `{"choices":[{"finish_reason":"stop"}],"usage":{"total_tokens":0},"error":{"code":2001,"message":"鉴权失败：[request id:x]signature calculated is different from client signature"}}`, false, "auth", "phrase:signature calculated"},
		{"signature calculated in a 403", 403, nil, `{"error":{"message":"The signature calculated does not match the signature you provided"}}`, false, "auth", "phrase:signature calculated"},
		{"calculated signature", 400, nil, `{"Message":"The calculated signature differs from the one sent"}`, false, "auth", "phrase:calculated signature"},
		{"鉴权失败 alone in a 200", 200, nil, `{"error":{"code":2001,"message":"鉴权失败"}}`, false, "auth", "phrase:鉴权失败"},
		{"认证失败", 400, nil, `{"error":{"message":"认证失败，请检查密钥"}}`, false, "auth", "phrase:认证失败"},
		{"签名验证失败", 200, nil, `{"error":{"code":"4003","message":"签名验证失败"}}`, false, "auth", "phrase:签名验证失败"},
		// Must not catch: a thinking block's or a tool call's signature the
		// client sends back is its input.
		{"thinking block signature", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1.content.0: Invalid ` + "`signature`" + ` in ` + "`thinking`" + ` block"}}`, false, "bad_request", ""},
		{"thought signature missing", 400, nil, `{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:is missing a"},
		{"signature alone is nothing", 400, nil, `{"error":{"message":"signature mismatch in the uploaded document"}}`, false, "unknown", ""},
	})
}

// TestSignatureEcho: the wording quoted from the client's request is no
// evidence.
func TestSignatureEcho(t *testing.T) {
	req := []byte(`{"messages":[{"role":"user","content":"翻译：鉴权失败"}]}`)
	v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"cannot translate 鉴权失败"}}`), Request: req})
	if v.Class == Auth {
		t.Fatalf("got %+v: echoed wording decided auth", v)
	}
}

// TestMiniMaxBaseResp: MiniMax's documented base_resp codes decide where
// its status_msg names nothing a phrase reads (weak codes).
func TestMiniMaxBaseResp(t *testing.T) {
	run(t, []tc{
		{"1039 token limit in a 200", 200, nil, `{"id":"x","choices":null,"object":"chat.completion","base_resp":{"status_code":1039,"status_msg":"token limit"}}`, false, "rate_limited", "minimax:base_resp=1039"},
		{"1004 not authorized", 200, nil, `{"base_resp":{"status_code":1004,"status_msg":"token not match group"}}`, false, "auth", "minimax:base_resp=1004"},
		{"2013 invalid params", 200, nil, `{"base_resp":{"status_code":2013,"status_msg":"glyph definition format error"}}`, false, "bad_request", "minimax:base_resp=2013"},
		{"1026 input sensitive", 200, nil, `{"base_resp":{"status_code":1026,"status_msg":"input new_sensitive"}}`, false, "refusal", "phrase:new_sensitive"}, // its words decide first (round 29)
		{"1026 with no words", 200, nil, `{"base_resp":{"status_code":1026,"status_msg":""}}`, false, "refusal", "minimax:base_resp=1026"},
		{"1002 with its words", 200, nil, `{"base_resp":{"status_code":1002,"status_msg":"rate limit"}}`, false, "rate_limited", "phrase:rate limit"},
		// Must not catch: a success code, a code the table leaves out, a
		// phrase that says more, the same number elsewhere.
		{"status_code 0 with choices", 200, nil, `{"choices":[{"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],"base_resp":{"status_code":0,"status_msg":"success"}}`, false, "ok", ""},
		{"1000 unknown error stays unknown", 200, nil, `{"base_resp":{"status_code":1000,"status_msg":"unknown error"}}`, false, "unknown", "body:base_resp"},
		{"phrase outranks the weak code", 200, nil, `{"base_resp":{"status_code":1039,"status_msg":"context window exceeds limit"}}`, false, "context_length", "phrase:context window"},
		{"1039 in error.code is no base_resp", 400, nil, `{"error":{"code":"1039","message":"x"}}`, false, "unknown", ""},
	})
}

// TestMissingParameter: Volcengine Ark's MissingParameter code and "missing
// one or multiple required parameters" are the client's input, where the
// status says nothing else.
func TestMissingParameter(t *testing.T) {
	run(t, []tc{
		{"ark MissingParameter", 400, nil, `{"error":{"code":"MissingParameter","message":"The request failed because it is missing one or multiple required parameters. Request id: 0217","param":"","type":"BadRequest"}}`, false, "bad_request", "phrase:missing…required parameter"},
		{"the code alone", 400, nil, `{"error":{"code":"MissingParameter","message":"Bad request"}}`, false, "bad_request", "code:missingparameter"},
		{"snake case code", 400, nil, `{"error":{"code":"missing_parameter","message":"Bad request"}}`, false, "bad_request", "code:missing_parameter"},
		{"wording alone", 400, nil, `{"error":{"message":"missing one or more required parameters"}}`, false, "bad_request", "phrase:missing…required parameter"},
		// Must not catch: a status that says more.
		{"a 429 stays a rate", 429, nil, `{"error":{"code":"MissingParameter","message":"Too many requests"}}`, false, "rate_limited", ""},
		{"a 500 stays a server error", 500, nil, `{"error":{"message":"upstream is missing one or multiple required parameters"}}`, false, "server_error", ""},
		{"missing required permissions is no parameter", 403, nil, `{"error":{"message":"You are missing one or more required permissions"}}`, false, "forbidden", ""},
	})
}

// TestShouldBeRange: "should be in [1, 384000]", "should be between 1 and
// 100": a value outside its allowed range, as vendors that write "should"
// word "must be in"; pydantic's "Input should be greater than" keeps its
// rule (a location in the request body).
func TestShouldBeRange(t *testing.T) {
	run(t, []tc{
		{"sensenova range", 400, nil, `{"error":{"message":"field MaxTokens invalid, should be in [1, 384000]","type":"invalid_request_error"}}`, false, "bad_request", "phrase:should be in"},
		{"between", 400, nil, `{"error":{"message":"top_k should be between 1 and 100"}}`, false, "bad_request", "phrase:should be between"},
		{"in a 200 status envelope", 200, nil, `{"code":40001,"msg":"seed should be within the int32 range"}`, false, "bad_request", "phrase:should be within"},
		// Must not catch: "should be included", a status that says more,
		// the client's own words.
		{"should be included", 400, nil, `{"error":{"message":"The header should be included next time"}}`, false, "unknown", ""},
		{"a 429 stays a rate", 429, nil, `{"error":{"message":"Requests should be between 1 and 10 per minute"}}`, false, "rate_limited", ""},
		{"pydantic comparison outside the body", 400, nil, `{"error":{"message":"Input should be greater than 0 at ('query', 'limit')"}}`, false, "unknown", "status:400"},
		{"a range with no verb of it", 400, nil, `{"error":{"message":"Range of input length should be [1, 983616]"}}`, false, "context_length", "phrase:input length"},
	})
	req := []byte(`{"messages":[{"role":"user","content":"The answer should be in French"}]}`)
	v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"Rejected: The answer should be in French"}}`), Request: req})
	if v.Class == BadRequest {
		t.Fatalf("got %+v: echoed wording decided bad_request", v)
	}
}

// TestPromptTokenCountExceeds: the seventh round's second batch. A prompt's
// (or input's) token count said to exceed a limit is the window, with or
// without "the maximum" (GitHub Copilot's "prompt token count of 514673
// exceeds the limit of 128000", code model_max_prompt_tokens_exceeded); a
// throttle that words its per-minute cap that way stays the throttle's.
func TestPromptTokenCountExceeds(t *testing.T) {
	run(t, []tc{
		{"copilot's wording and code", 400, nil, `{"error":{"message":"prompt token count of 514673 exceeds the limit of 128000","code":"model_max_prompt_tokens_exceeded"}}`, false, "context_length", ""},
		{"the wording alone", 400, nil, `{"error":{"message":"prompt token count of 9000 exceeds the limit of 8192"}}`, false, "context_length", ""},
		{"the code alone", 400, nil, `{"error":{"message":"Bad request","code":"model_max_prompt_tokens_exceeded"}}`, false, "context_length", "code:model_max_prompt_tokens_exceeded"},
		{"input token count", 400, nil, `{"error":{"message":"input token count 40000 exceeds the model limit"}}`, false, "context_length", ""},
		// Must not catch: a per-minute cap (a 429 stays rate_limited), a
		// count that does not exceed anything.
		{"a throttle's per-minute count", 429, nil, `{"error":{"message":"prompt token count of 12000 exceeds the limit of 10000 tokens per minute","type":"rate_limit_error"}}`, false, "rate_limited", ""},
		{"a count that exceeds nothing", 400, nil, `{"error":{"message":"the prompt token count was 12"}}`, false, "unknown", ""},
	})
}
