package classify

import "testing"

// Round 54's rules, from hunts 54a-54d, each beside the near answers it
// must leave alone and an echo guard: the client's own words quoted back
// never steer the class.

// A 431 Request Header Fields Too Large (hunt 54a: gunicorn's own page in
// front of Moonshot and of an OpenAI proxy; corpus
// moonshot-431-gunicorn-request-header-fields-too-large-html) is the
// header twin of a 413 (RFC 6585): this request is too big for this
// endpoint's front, overflow, not fixed (a body that says more refines it,
// as for a 413).
func TestRoundFiftyFour431IsOverflow(t *testing.T) {
	page := "<html>\n  <head>\n    <title>Request Header Fields Too Large</title>\n  </head>\n  <body>\n    <h1><p>Request Header Fields Too Large</p></h1>\n    Error parsing headers: &#x27;limit request headers fields&#x27;\n  </body>\n</html>\n"
	run(t, []tc{
		{"gunicorn's 431 page", 431, nil, page, false, "overflow", "status:431"},
		{"an empty 431", 431, nil, ``, false, "overflow", "status:431"},
		{"a 413 stays overflow", 413, nil, ``, false, "overflow", "status:413"},
		{"a 431 that says the context is too long", 431, nil, `{"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens."}}`, false, "context_length", ""},
	})
	echoGuardNot(t, "Request Header Fields Too Large", 400, Overflow)
}

// "No longer supported" whose subject is a part of a request (hunt 54b:
// Gemini's Interactions API, "The legacy Interactions API schema is no
// longer supported. Please upgrade your client SDK …"; corpus
// gemini-400-interactions-legacy-schema-no-longer-supported-upgrade-client-sdk):
// a gone-noun (API, model, endpoint, version) followed by a noun naming a
// part of the request (schema, parameter, field, format, header …) is a
// modifier: the request's feature is gone, not the endpoint's API. Not
// unavailable (nothing cools for everyone); unknown, as "The functions
// parameter is no longer supported" is, unless other words decide (Gemini's
// "adopt the new 'steps' schema" is bad input). "The model parameter … no
// longer" is read by the model…no longer row, not goneSubject, and is
// left as it was.
func TestRoundFiftyFourGoneRequestFeature(t *testing.T) {
	gemini := `{"error":{"message":"The legacy Interactions API schema is no longer supported. Please upgrade your client SDK to Python >= 2.0.0 or JavaScript/TypeScript >= 2.0.0 to adopt the new 'steps' schema. For details and migration examples, see: https://ai.google.dev/gemini-api/docs/interactions-breaking-changes-may-2026","code":"invalid_request"}}`
	run(t, []tc{
		// Past the gone reading, Gemini's own words name the request's
		// shape ("adopt the new 'steps' schema"): bad_request.
		{"Gemini's legacy API schema", 400, nil, gemini, false, "bad_request", "phrase:schema"},
		{"the API schema alone is bad input by its word schema", 400, nil, `{"error":{"message":"The legacy Interactions API schema is no longer supported."}}`, false, "bad_request", "phrase:schema"},
		{"an API parameter", 400, nil, `{"error":{"message":"The API parameter foo is no longer supported."}}`, false, "unknown", ""},
		{"an API field", 400, nil, `{"error":{"message":"This API field is no longer supported."}}`, false, "unknown", ""},
		{"an endpoint header", 400, nil, `{"error":{"message":"The endpoint header x-foo is deprecated."}}`, false, "unknown", ""},

		// Near answers: the API, the model, a version are still gone.
		{"the API itself stays unavailable", 400, nil, `{"error":{"message":"This API is no longer supported."}}`, false, "unavailable", ""},
		{"an API version stays unavailable", 400, nil, `{"error":{"message":"This API version is no longer supported."}}`, false, "unavailable", ""},
		{"the model stays unavailable", 400, nil, `{"error":{"message":"The model gpt-4-0314 has been deprecated."}}`, false, "unavailable", ""},
		{"a model then a schema later stays unavailable", 404, nil, `{"error":{"message":"This model is no longer supported, see the schema docs."}}`, false, "unavailable", ""},
	})
	echoGuardNot(t, "The API is no longer supported", 400, Unavailable)
}

// An account suspended or locked "as a security precaution", lifted only
// by support verifying the owner (hunt 54c: Kiro / Amazon CodeWhisperer's
// 403 AccessDeniedException "Your User ID (…) temporarily is suspended.
// We've locked your account as a security precaution. To restore access,
// please contact our support team to verify your identity"; corpus
// kiro-403-accessdeniedexception-user-id-temporarily-is-suspended-locked-account):
// the credential Detour holds is shut out for every model, auth at any
// status, as "account has been suspended" is. Weak: money words in the
// same answer keep it quota.
func TestRoundFiftyFourLockedAsSecurityPrecaution(t *testing.T) {
	kiro := `{"message":"Your User ID (a4d8b4b8-40e1-70fa-81e6-5cfeda4e2335) temporarily is suspended. We've locked your account as a security precaution. To restore access, please contact our support team to verify your identity: https://app.kiro.dev/account/usage?support_form"}`
	kiro2 := `{"message":"Your User ID (d-9067642ac7.840824a8-9071-70ca-51ec-b69a7d323e00) temporarily is suspended. We detected unusual user activity and locked it as a security precaution. To restore access, please contact our support team to verify your identity: https://support.aws.amazon.com/#/contacts/kiro"}`
	ade := map[string]string{"x-amzn-errortype": "AccessDeniedException"}
	run(t, []tc{
		{"Kiro's suspension", 403, ade, kiro, false, "auth", ""},
		{"Kiro's later wording", 403, ade, kiro2, false, "auth", ""},
		{"without the header", 403, nil, kiro, false, "auth", ""},
		{"at 400", 400, nil, kiro, false, "auth", ""},

		// Near answers: money reasons stay quota; a lock with a wait is a
		// throttle; a plain AccessDeniedException stays forbidden.
		{"a suspension for a balance stays quota", 429, nil, `{"error":{"message":"Your account is suspended due to insufficient balance, please recharge your account."}}`, false, "quota", ""},
		{"a spending-limit suspension stays quota", 412, nil, `{"error":{"message":"Account suspended: spending limit reached. We've locked your account as a security precaution until you add credits."}}`, false, "quota", ""},
		{"a plain AccessDeniedException stays forbidden", 403, ade, `{"message":"You don't have access to the model with the specified model ID."}`, false, "forbidden", ""},
	})
	echoGuardNot(t, "we locked your account as a security precaution", 403, Auth)
}

// "`A` requires `B` to be <value>" between two request members (hunt 54d:
// TabbyAPI's 422 {"detail":"continue_final_message requires
// add_generation_prompt to be false"}; corpus
// tabbyapi-422-detail-continue-final-message-requires-add-generation-prompt-false):
// two members of the request contradict each other, bad_request. A server
// start-up flag ("requires --enable-auto-tool-choice … to be set") is the
// server's capability and stays unknown.
func TestRoundFiftyFourRequiresMemberToBe(t *testing.T) {
	run(t, []tc{
		{"TabbyAPI's 422", 422, nil, `{"detail":"continue_final_message requires add_generation_prompt to be false"}`, false, "bad_request", ""},
		{"backticked members", 400, nil, "{\"error\":{\"message\":\"`stream_options` requires `stream` to be true\"}}", false, "bad_request", ""},

		// Near answers: server flags, prose subjects.
		{"vLLM's flags stay unknown", 400, nil, `{"object":"error","message":"\"auto\" tool choice requires --enable-auto-tool-choice and --tool-call-parser to be set","type":"BadRequestError","param":null,"code":400}`, false, "unknown", ""},
		{"a member needing a flag stays unknown", 422, nil, `{"detail":"tool_choice requires --enable-auto-tool-choice to be set"}`, false, "unknown", ""},
		{"prose requires stays unknown", 422, nil, `{"detail":"This feature requires the server to be restarted"}`, false, "unknown", ""},
	})
	echoGuardNot(t, "continue_final_message requires add_generation_prompt to be false", 422, BadRequest)
}

// "unsupported content type" with no MIME type after it (hunt 54d:
// text-generation-webui's 400 "messages: unsupported content type" with
// param messages, for an input_audio or file part; corpus
// textgenwebui-400-messages-unsupported-content-type): a content part
// OpenAI accepts and this server does not read, a capability gap, unknown
// as "Unsupported content part type" is. With a MIME type after it, it is
// the HTTP Content-Type of the request and stays as it was.
func TestRoundFiftyFourUnsupportedContentType(t *testing.T) {
	run(t, []tc{
		{"text-generation-webui's 400", 400, nil, `{"error":{"message":"messages: unsupported content type","type":"invalid_request_error","param":"messages","code":null}}`, false, "unknown", "phrase:unsupported content type"},
		{"a bare one", 400, nil, `{"error":{"message":"Unsupported content type."}}`, false, "unknown", "phrase:unsupported content type"},

		// Near answers: a MIME type after it.
		{"a MIME type after it stays bad_request", 400, nil, `{"error":{"message":"Unsupported content type: text/plain","type":"invalid_request_error","param":"messages","code":null}}`, false, "bad_request", ""},
		{"a quoted MIME type after it stays bad_request", 400, nil, `{"error":{"message":"Unsupported content type 'application/x-www-form-urlencoded'","type":"invalid_request_error","param":"messages","code":null}}`, false, "bad_request", ""},
	})
	echoGuardNot(t, "unsupported content type", 403, Unknown)
}

// A JSON parser's syntax error in a 5xx (hunt 54d: llama-server's 500
// "[json.exception.parse_error.101] parse error at line 3, column 20 …";
// corpus llamacpp-500-server-error-json-exception-parse-error-101-request-body):
// the server could not parse what it was sent, not its own failure; but a
// relay may be the one that failed to parse its upstream's answer, so
// unknown (fail over, cool nothing), not bad_request.
func TestRoundFiftyFourJSONParseErrorIn5xx(t *testing.T) {
	llama := "{\n    \"error\": {\n        \"code\": 500,\n        \"message\": \"[json.exception.parse_error.101] parse error at line 3, column 20: syntax error while parsing object - unexpected ':'; expected '}'\",\n        \"type\": \"server_error\"\n    }\n}"
	run(t, []tc{
		{"llama-server's 500", 500, nil, llama, false, "unknown", "phrase:json.exception.parse_error."},
		{"the same at 502", 502, nil, llama, false, "unknown", ""},

		// Near answers: a plain 500, a parse error of the model's output.
		{"a plain 500 stays server_error", 500, nil, `{"error":{"code":500,"message":"Internal server error","type":"server_error"}}`, false, "server_error", "status:500"},
	})
	echoGuardNot(t, "[json.exception.parse_error.101] parse error", 500, Unknown)
}
