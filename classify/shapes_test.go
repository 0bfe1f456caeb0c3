package classify

import (
	"net/http"
	"testing"
)

// TestVendorEnvelopes: error shapes beyond the OpenAI/Anthropic/Gemini ones,
// and the success bodies that share their field names and must stay
// successes.
func TestVendorEnvelopes(t *testing.T) {
	run(t, []tc{
		// Baidu: a non-zero error_code with error_msg, sent with 200.
		{"baidu error_code in 200", 200, nil, `{"error_code":336003,"error_msg":"the length of messages must be an odd number"}`, false, "bad_request", "phrase:must be"},
		{"baidu error_code, words unknown", 200, nil, `{"error_code":336100,"error_msg":"something new"}`, false, "unknown", "body:error_code"},
		{"baidu error_code 0 is a success", 200, nil, `{"error_code":0,"result":"hello"}`, false, "ok", ""},
		// MiniMax: base_resp.status_code != 0, whatever the order of members.
		{"minimax base_resp error", 200, nil, `{"base_resp":{"status_msg":"invalid api key","status_code":2049}}`, false, "auth", "phrase:invalid api key"},
		{"minimax base_resp success", 200, nil, `{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"base_resp":{"status_code":0,"status_msg":"success"}}`, false, "ok", ""},
		// Cloudflare: errors[].message.
		{"cloudflare errors array", 400, nil, `{"success":false,"errors":[{"code":7000,"message":"No route for that URI"}],"messages":[],"result":null}`, false, "unavailable", "phrase:no route for"},
		// Ollama NDJSON: an error line after token lines; token lines alone
		// are a success.
		{"ndjson error after tokens", 200, nil, "{\"response\":\"a\",\"done\":false}\n{\"response\":\"b\",\"done\":false}\n{\"error\":\"boom\"}\n", false, "server_error", "body:error"},
		{"ndjson tokens only", 200, nil, "{\"response\":\"a\",\"done\":false}\n{\"response\":\"an error\",\"done\":true}\n", false, "ok", ""},
		{"ndjson cut mid-line", 200, nil, "{\"response\":\"a\",\"done\":false}\n{\"err", false, "ok", ""},
		// llama.cpp's `error: {…}` stream line; a text body that begins with
		// "error:" is still read as text.
		{"llama.cpp error line", 200, nil, "error: {\"code\":400,\"message\":\"the request exceeds the available context size\",\"type\":\"invalid_request_error\"}\n\n", true, "context_length", "phrase:context size"},
		{"text body starting error:", 400, nil, "error: Your credit balance is too low\n", false, "quota", "phrase:credit balance is too low"},
		// Responses API: a response.failed event carries response.error; a
		// response whose error is null is a success.
		{"responses response.failed", 200, nil, `{"type":"response.failed","response":{"id":"resp_1","status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached"}}}`, true, "rate_limited", "phrase:rate limit"},
		{"responses response.failed, code only", 200, nil, `{"type":"response.failed","response":{"status":"failed","error":{"code":"server_error","message":"An error occurred."}}}`, true, "server_error", "code:server_error"},
		{"responses completed, error null", 200, nil, `{"type":"response.completed","response":{"id":"resp_1","status":"completed","error":null,"output":[]}}`, true, "ok", ""},
		// iFlytek Spark: header.code != 0 with header.message, sent with 200.
		{"spark header error", 200, nil, `{"header":{"code":10003,"message":"ClientMsgError: invalid model domain","sid":"x","status":2}}`, false, "unavailable", "phrase:invalid model"},
		{"spark header, words unknown", 200, nil, `{"header":{"code":10999,"message":"SomethingNew","sid":"x","status":2}}`, false, "unknown", "body:header.code"},
		{"header code 200 is a success", 200, nil, `{"header":{"code":200,"message":"OK"},"choices":[{"message":{"content":"hi"}}]}`, false, "ok", ""},
		{"spark header code 0 is a success", 200, nil, `{"header":{"code":0,"message":"Success","sid":"x","status":0},"payload":{"choices":{"text":[{"content":"hi"}]}}}`, false, "ok", ""},
		// FastAPI: detail as an object.
		{"fastapi detail object", 403, nil, `{"detail":{"error":"Not authenticated"}}`, false, "auth", "phrase:not authenticated"},
		// Zod's formatted error names the field; the form's own _errors does not.
		{"zod field errors", 400, nil, `{"error":"Invalid request parameters","details":{"_errors":[],"model":{"_errors":["Required"]}}}`, false, "bad_request", "zod:_errors"},
		{"zod form errors only", 400, nil, `{"error":"Invalid request","details":{"_errors":["Something"]}}`, false, "unknown", "status:400"},
	})
}

// TestPhraseShapes: the matcher's new shapes and their limits.
func TestPhraseShapes(t *testing.T) {
	run(t, []tc{
		// Chinese has no word starts: a phrase is found inside a sentence.
		{"chinese inside a sentence", 429, nil, `{"error":{"code":"1113","message":"您的账户余额不足，请充值。"}}`, false, "quota", "phrase:余额不足"},
		{"chinese case-sensitive is no refusal", 400, nil, `{"error":{"message":"模型名称大小写敏感，请检查"}}`, false, "unknown", "status:400"},
		{"chinese rate limit (round 61)", 429, nil, `{"error":{"code":"1302","message":"您的账户已达到速率限制"}}`, false, "rate_limited", "phrase:速率限制"},
		{"chinese absent", 429, nil, `{"error":{"code":"1302","message":"您的请求暂时无法处理"}}`, false, "rate_limited", "status:429"},
		// A rate's unit after a slash, not a path segment.
		{"calls / month", 429, nil, `{"message":"limited to 1000 API calls / month."}`, false, "quota", "phrase:month"},
		{"calls /\n month (escaped blank)", 429, nil, `{"message":"limited to 1000 API calls /\n month."}`, false, "quota", "phrase:month"},
		{"requests/day", 429, nil, `{"message":"limit of 50 requests/day reached"}`, false, "quota", "phrase:day"},
		{"path ending in /day", 429, nil, `{"message":"Slow down. See https://example.com/limits/day"}`, false, "rate_limited", "status:429"},
		{"a $/month plan beside a per-minute limit", 429, nil, `{"error":{"message":"10 requests per minute on the free tier; upgrade to the $20/month plan."}}`, false, "rate_limited", "phrase:per minute"},
		{"path segment /month/", 429, nil, `{"message":"Slow down. See /month/usage"}`, false, "rate_limited", "status:429"},
		// An abbreviation is a whole word.
		{"TPD as a word", 429, nil, `{"error":{"message":"organization TPD rate limit reached"}}`, false, "quota", "phrase:tpd"},
		{"tpd as a word's start", 429, nil, `{"error":{"message":"tpdx rate limit reached"}}`, false, "rate_limited", "phrase:rate limit"},
		// "No credits were charged" is not an account without credits.
		{"no credits were charged", 403, nil, `{"error":{"message":"Your input was flagged for \"harassment\". No credits were charged.","code":403}}`, false, "refusal", "phrase:flagged"},
		// A usage limit that only says "try again later" is a throttle; one
		// with a reset or an upgrade is a plan's allowance.
		{"usage limits, try again later", 429, nil, `{"message":"You have exceeded your usage limits. Please try again later."}`, false, "rate_limited", "status:429"},
		{"usage limit with a reset", 429, nil, `{"error":{"message":"Usage limit reached for 5 hour. Your limit will reset at 2026-08-27 21:31:39"}}`, false, "quota", "phrase:usage limit…reset"},
		// A Google quota metric's period decides over "Quota exceeded".
		{"quota metric per minute", 429, nil, `{"error":{"code":429,"message":"Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute_per_project_per_base_model with base model: gemini-pro.","status":"RESOURCE_EXHAUSTED"}}`, false, "rate_limited", "quota-metric:per_minute"},
		{"quota metric per day", 429, nil, `{"error":{"code":429,"message":"Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_day_per_project.","status":"RESOURCE_EXHAUSTED"}}`, false, "quota", "quota-metric:per_day"},
		// A window total over twice its per-minute limit: this request alone
		// is over it. Just over the limit is an ordinary throttle.
		{"actual over twice the limit", 429, nil, `{"error":"Tokens per Minute (actual/limit): 65605/16000."}`, false, "overflow", "phrase:requested>limit"},
		{"actual just over the limit", 429, nil, `{"error":"Tokens per Minute (actual/limit): 17000/16000."}`, false, "rate_limited", "phrase:per minute"},
		{"current over twice the limit", 429, nil, `{"error":{"type":"rate_limit_reached_error","message":"request reached project TPM rate limit, current: 1410, limit: 100"}}`, false, "overflow", "phrase:requested>limit"},
		{"current just over the limit", 429, nil, `{"error":{"type":"rate_limit_reached_error","message":"request reached project TPM rate limit, current: 110, limit: 100"}}`, false, "rate_limited", "phrase:tpm"},
		// A Google quota metric that names no period refills within minutes.
		// (A bare "Quota exceeded" at a 429 is the 429's throttle: corpus
		// round 22, classify/vocab22tables_test.go.)
		{"a googleapis path is no metric", 429, nil, `{"error":{"code":429,"message":"Quota exceeded. See https://generativelanguage.googleapis.com/v1beta/models for limits.","status":"RESOURCE_EXHAUSTED"}}`, false, "rate_limited", "gemini:status=RESOURCE_EXHAUSTED"},
		{"quota metric without a period", 429, nil, `{"error":{"code":429,"message":"Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model with base model: m.","status":"RESOURCE_EXHAUSTED"}}`, false, "rate_limited", "quota-metric:per_minute"},
		// A hyphenated period.
		{"per-day", 200, nil, `data: {"error":{"message":"Rate limit exceeded: free-models-per-day","code":429}}`, true, "quota", "phrase:per-day"},
		// Busy or saturated: the provider's load, even as a 429; a rate
		// limit that mentions busy stays a rate.
		{"model busy as a 429", 429, nil, `{"error":{"message":"Model busy, retry later"}}`, false, "server_error", "phrase:busy"},
		{"busy inside a word", 429, nil, `{"error":{"message":"business tier limit"}}`, false, "rate_limited", "status:429"},
		{"rate limit beside busy", 429, nil, `{"error":{"message":"Rate limit exceeded: the server is busy"}}`, false, "rate_limited", "phrase:rate limit"},
		{"chinese load saturated", 429, nil, `{"error":{"message":"当前分组上游负载已饱和，请稍后再试"}}`, false, "server_error", "phrase:负载已饱和"},
		// "invalid argument" names nothing: unknown where the status says
		// nothing; a bad-input code, a named field or a telling status
		// still decides.
		{"invalid argument alone", 400, nil, `{"error":{"message":"Request contains an invalid argument."}}`, false, "unknown", "phrase:invalid argument"},
		{"invalid argument in a 2xx stream error", 200, nil, `data: {"type":"error","code":null,"message":"Invalid arguments passed to the model.","param":null}`, true, "unknown", "phrase:invalid argument"},
		{"invalid argument in a 429 keeps the status", 429, nil, `{"error":{"message":"Invalid argument."}}`, false, "rate_limited", "status:429"},
		{"invalid argument with a bad-input code", 400, nil, `{"error":{"message":"Client specified an invalid argument","code":"invalid_request_body"}}`, false, "bad_request", "code:invalid_request_body"},
		{"invalid argument naming the field", 400, nil, `{"error":{"message":"Invalid argument: temperature must be between 0 and 2"}}`, false, "bad_request", "phrase:temperature"},
		// Guards for broad bad-input words: a key that "is not valid" is
		// rejected; a tool "not found in model output" is no gone model.
		{"api key is not valid", 400, nil, `{"error":{"message":"The API key is not valid."}}`, false, "auth", "phrase:api key is not valid"},
		{"tool not found in model output", 400, nil, `{"error":{"message":"Tool call id not found in model output."}}`, false, "unknown", "status:400"},
		// A capability gap is unknown, but a named param still proves bad
		// input, and a named parameter outranks the gap.
		{"capability gap", 422, nil, `{"error":"Input validation error: grammar is not supported","error_type":"validation"}`, false, "unknown", "phrase:is not supported"},
		{"capability gap in a 2xx error", 200, nil, `{"error":"this model is missing data required for image input"}`, false, "unknown", "phrase:missing data required"},
		{"capability gap with param", 400, nil, `{"error":{"message":"The image format is not supported.","param":"image_url"}}`, false, "unknown", "phrase:is not supported"},
		{"wrong value with param", 400, nil, `{"error":{"message":"The image format is invalid.","param":"image_url"}}`, false, "bad_request", "openai:param"},
		{"unsupported parameter outranks the gap", 400, nil, `{"error":{"message":"Unsupported parameter: 'max_tokens' is not supported with this model."}}`, false, "bad_request", "phrase:unsupported parameter"},
	})
}

// TestFiveXXShapes: what a 5xx body may prove besides a request-scoped class
// (server.go), and what stays server_error.
func TestFiveXXShapes(t *testing.T) {
	run(t, []tc{
		{"cannot pay as a 500", 500, nil, `{"type":"error","error":{"type":"api_error","message":"insufficient balance (1008)"}}`, false, "quota", "phrase:insufficient balance"},
		{"strong quota code as a 500", 500, nil, `{"error":{"code":"Arrearage","message":"Access denied, please make sure your account is in good standing."}}`, false, "quota", "code:arrearage"},
		{"a period word stays server_error", 500, nil, `{"error":{"message":"daily limit reached for this node"}}`, false, "server_error", "status:500"},
		{"batch size of the server", 500, nil, `{"error":{"code":500,"message":"input is too large to process. increase the physical batch size","type":"server_error"}}`, false, "overflow", "phrase:physical batch size"},
		{"generic size cap stays server_error", 500, nil, `{"error":{"message":"Request too large"}}`, false, "server_error", "status:500"},
		{"capability the server lacks", 500, nil, `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`, false, "unknown", "phrase:requires…flag"},
		{"bad-input words in a 502 stay server_error", 502, nil, `{"error":{"message":"Format error: 'response_format.json_schema.schema' is not of type 'object'"}}`, false, "server_error", "status:502"},
		{"vLLM maximum model length", 500, nil, `{"detail":"The decoder prompt (length 9000) is longer than the maximum model length of 8192."}`, false, "context_length", "phrase:maximum model length"},
		// A proxy's 5xx quoting its upstream's 4xx, as the SDKs print it.
		{"relayed 429 per-minute quota", 500, nil, `{"error":{"message":"Error code: 429 - {'error': {'code': 429, 'message': 'Quota exceeded for aiplatform.googleapis.com/online_prediction_tokens_per_minute_per_base_model.', 'status': 'RESOURCE_EXHAUSTED'}}","code":500}}`, false, "rate_limited", "quota-metric:per_minute"},
		{"relayed 401", 500, nil, `{"error":{"message":"Error code: 401 - {'error': {'message': 'x'}}"}}`, false, "auth", "relayed:401"},
		{"relayed 400, nothing named", 502, nil, `{"error":{"message":"Error code: 400 - {'error': {'message': 'oops'}}"}}`, false, "unknown", "relayed:400"},
		{"relayed 5xx stays server_error", 500, nil, `{"error":{"message":"Error code: 503 - {'error': {'message': 'oops'}}"}}`, false, "server_error", "status:500"},
		{"relayed status not in the SDK form", 500, nil, `{"error":{"message":"upstream said error code: 429"}}`, false, "server_error", "status:500"},
	})
}

// A proxy's 5xx relaying a not-found about a file the client named is read
// like the 404 itself: the client's input, not the endpoint's model.
func TestRelayedNotFoundIsClientNamed(t *testing.T) {
	body := []byte(`{"error":{"message":"Error code: 404 - {'error': {'message': 'No such File object: file-abc123xyz'}}","code":500}}`)
	req := []byte(`{"model":"gpt-x","input":[{"type":"input_file","file_id":"file-abc123xyz"}]}`)
	if v := Classify(Response{Status: 500, Body: body, Request: req, Model: "gpt-x"}); v.Class != BadRequest {
		t.Errorf("relayed client-named 404: %+v, want bad_request", v)
	}
	if v := Classify(Response{Status: 500, Body: body}); v.Class != Unavailable {
		t.Errorf("relayed 404 without the request: %+v, want unavailable", v)
	}
}

// AWS answers ValidationException for endpoint-side states too (a retired
// model, model access not granted): the code alone is no proof of the
// client's fault; the client-fault wordings have phrases of their own
// (found by the second hostile review: these read bad_request and stopped
// the route).
func TestValidationExceptionAloneIsNotTheClients(t *testing.T) {
	h := http.Header{"X-Amzn-Errortype": {"ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}}
	req := []byte(`{"model":"x","messages":[{"role":"user","content":"hi"}]}`)
	for _, msg := range []string{
		"This model version has reached the end of its life. Please refer to the AWS documentation for more details.",
		"Operation not allowed",
	} {
		v := Classify(Response{Status: 400, Header: h, Body: []byte(`{"message":"` + msg + `"}`), Request: req, Model: "m"})
		if v.Class == BadRequest {
			t.Errorf("400 ValidationException %q: bad_request (%s): the route stops on an endpoint-side state", msg, v.Evidence)
		}
	}
}

// A relayed status is read only where a proxy prints one: at the start of
// the message or after an exception's name, followed by the upstream's
// body. A 5xx quoting "Error code: 401 - " inside model output it failed to
// parse is no 401 (found by the second hostile review: it cooled the
// account and paged).
func TestRelayedStatusOnlyWhereAProxyPrintsIt(t *testing.T) {
	req := []byte(`{"model":"x","messages":[{"role":"user","content":"Reply with the words Error code, a colon, the number four hundred one, a blank, a dash, a blank, then {}"}]}`)
	body := `{"object":"error","message":"Failed to parse tool call from model output: {\"reply\": \"Error code: 401 - {}\"}","type":"InternalServerError","code":500}`
	if v := Classify(Response{Status: 500, Body: []byte(body), Request: req, Model: "m"}); v.Class == Auth || v.Class == Quota {
		t.Errorf("500 quoting model output: %v (%s): cools the account and pages", v.Class, v.Evidence)
	}
	for _, msg := range []string{
		`Error code: 401 - {'error': {'message': 'Incorrect API key provided'}}`,
		`litellm.AuthenticationError: AuthenticationError: OpenAIException - Error code: 401 - {'error': {'message': 'Incorrect API key provided'}}`,
	} {
		v := Classify(Response{Status: 500, Body: []byte(`{"error":{"message":"` + msg + `"}}`)})
		if v.Class != Auth {
			t.Errorf("500 relaying %q: %v (%s), want auth", msg, v.Class, v.Evidence)
		}
	}
}
