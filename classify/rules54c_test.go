package classify

import "testing"

// Round 54c's rules, from hunt 54e (capability gaps: a model or server that
// cannot do what the request asks), each beside the near answers it must
// leave alone and an echo guard: the client's own words quoted back never
// steer the class.

// (1) "not supported for … version" (Azure OpenAI: "Functions are not
// supported for this API version or this model version. To learn how to
// user use function calling …", MicrosoftDocs/azure-docs#121504; corpus
// azure-400-functions-not-supported-for-this-api-version-or-model-version):
// a feature not served at this endpoint's API version or this deployment's
// model version, the twin of "not enabled for api version" (Gemini's
// "Function calling mode `ANY` is not enabled for api version v1beta").
// Azure's api-version is the endpoint's configuration, never the client's,
// and the model version is the deployment's: another target serves the
// feature, so unknown (the walk moves on, nothing cools), not bad_request.
func TestRoundFiftyFourCNotSupportedForVersion(t *testing.T) {
	azure := `{"error": {"requestid": "7eaa7bfc-966e-411a-9254-b3c4987036f5", "code": 400, "message": "Functions are not supported for this API version or this model version. To learn how to user use function calling with Azure OpenAI Service. Please refer to this wiki  https://learn.microsoft.com/en-us/azure/ai-services/openai/how-to/function-calling?tabs=python"}}`
	run(t, []tc{
		{"Azure's functions for this API version", 400, nil, azure, false, "unknown", "phrase:not supported for…version"},
		{"the model version alone", 400, nil, `{"error":{"message":"Tools are not supported for this model version."}}`, false, "unknown", ""},
		{"an api version named", 400, nil, `{"error":{"message":"Structured outputs are not supported for api version 2024-02-01."}}`, false, "unknown", "phrase:not supported for…version"},

		// Near answers: the api version itself refused stays bad input;
		// Gemini's twin stays as it was.
		{"API version not supported stays bad_request", 400, nil, `{"error":{"code":"404","message":"API version not supported"}}`, false, "bad_request", "phrase:api version"},
		{"an invalid api version stays bad_request", 400, nil, `{"error":{"message":"Invalid API version specified."}}`, false, "bad_request", "phrase:api version"},
		{"Gemini's not enabled for api version", 400, nil, `{"error":{"code":400,"message":"Function calling mode ` + "`ANY`" + ` is not enabled for api version v1beta","status":"INVALID_ARGUMENT"}}`, false, "unknown", "phrase:not enabled for…version"},
		{"not supported for a far-off version stays as it was", 400, nil, `{"error":{"message":"This feature is not supported for your region; see the api version notes."}}`, false, "bad_request", "phrase:api version"},
	})
	echoGuardEv(t, "Functions are not supported for this API version", 400, "phrase:not supported for")
}

// (2) OpenAI's unsupported_value refusing `stream`, or a message's role,
// "with this model" (hunt 54e: o1 at launch, "Unsupported value: 'stream'
// does not support true with this model. Only the default (false) value is
// supported.", didalgolab/ai-intellij-plugin#33, and GitHub Models' twin,
// github/gh-models#31; pydantic-ai's o1-mini cassette "Unsupported value:
// 'messages[0].role' does not support 'system' with this model."; corpus
// openai-400-unsupported-value-stream-*, github-models-400-unsupported-value-stream-*,
// openai-unsupported-value-role-system-with-this-model-400). Round 44 made
// a model's refusal of a named parameter the client's (bad_request); round
// 46 excepted a hosted tool, which a client cannot drop from every request
// to suit one target. Streaming and the roles of the client's conversation
// are the same kind: the delivery mode and the conversation are what the
// client asks for, not a knob it may drop for one model, and other models
// serve them, so the walk moves on (unknown). The param comes from the
// answer's own param member and the message must open with OpenAI's words
// for it; a sampling knob (temperature, reasoning_effort) stays bad_request.
func TestRoundFiftyFourCUnsupportedValueStreamOrRole(t *testing.T) {
	o1 := `{"error":{"message":"Unsupported value: 'stream' does not support true with this model. Only the default (false) value is supported.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`
	gh := `{"error":{"message":"Unsupported value: 'stream' does not support true with this model. Supported values are: false.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`
	role := `{"error":{"message":"Unsupported value: 'messages[0].role' does not support 'system' with this model.","type":"invalid_request_error","param":"messages[0].role","code":"unsupported_value"}}`
	dev := `{"error":{"message":"Unsupported value: 'messages[2].role' does not support 'developer' with this model.","type":"invalid_request_error","param":"messages[2].role","code":"unsupported_value"}}`
	run(t, []tc{
		{"o1 cannot stream", 400, nil, o1, false, "unknown", "unsupported_value:stream"},
		{"GitHub Models' o1 cannot stream", 400, nil, gh, false, "unknown", "unsupported_value:stream"},
		{"o1-mini takes no system message", 400, nil, role, false, "unknown", "unsupported_value:role"},
		{"a developer message", 400, nil, dev, false, "unknown", "unsupported_value:role"},

		// Near answers: sampling knobs and other words stay bad input.
		{"temperature stays bad_request", 400, nil, `{"error":{"message":"Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.","type":"invalid_request_error","param":"temperature","code":"unsupported_value"}}`, false, "bad_request", ""},
		{"reasoning_effort stays bad_request", 400, nil, `{"error":{"message":"Unsupported value: 'reasoning_effort' does not support 'minimal' with this model. Supported values are: 'low', 'medium', and 'high'.","type":"invalid_request_error","param":"reasoning_effort","code":"unsupported_value"}}`, false, "bad_request", ""},
		{"stream_options stays bad_request", 400, nil, `{"error":{"message":"Unsupported value: 'stream_options' does not support {} with this model.","type":"invalid_request_error","param":"stream_options","code":"unsupported_value"}}`, false, "bad_request", ""},
		{"a role's content stays bad_request", 400, nil, `{"error":{"message":"Unsupported value: 'messages[0].content' does not support 'x' with this model.","type":"invalid_request_error","param":"messages[0].content","code":"unsupported_value"}}`, false, "bad_request", ""},
		{"stream without the model words stays bad_request", 400, nil, `{"error":{"message":"Unsupported value: 'stream' must be a boolean.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`, false, "bad_request", ""},
		{"stream with another code stays bad_request", 400, nil, `{"error":{"message":"Invalid type for 'stream': expected a boolean, but got a string instead.","type":"invalid_request_error","param":"stream","code":"invalid_type"}}`, false, "bad_request", ""},
		{"the words without the param stay bad_request", 400, nil, `{"error":{"message":"Unsupported value: 'stream' does not support true with this model.","type":"invalid_request_error","param":null,"code":"unsupported_value"}}`, false, "bad_request", ""},
		{"a param that disagrees with the words stays bad_request", 400, nil, `{"error":{"message":"Unsupported value: 'temperature' does not support 0 with this model.","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`, false, "bad_request", ""},
	})
	echoGuardEv(t, "Unsupported value: 'stream' does not support true with this model.", 400, "unsupported_value:")
	// The client's own words as the whole message, beside an answer's
	// param and code: the message is the client's, no proof.
	quote := "Unsupported value: 'stream' does not support true with this model."
	req := `{"model":"m","stream":true,"messages":[{"role":"user","content":"` + quote + `"}]}`
	body := `{"error":{"message":"` + quote + `","type":"invalid_request_error","param":"stream","code":"unsupported_value"}}`
	if v := Classify(Response{Status: 400, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Evidence == "unsupported_value:stream" {
		t.Errorf("the client's words as the message: %s (%s)", v.Class, v.Evidence)
	}
}

// (3) A 405 whose message is a capability gap said of a model, naming no
// HTTP method (hunt 54e: TrueFoundry relaying DeepInfra, "deepinfra error:
// json_object response format is not supported for model:
// stepfun-ai/Step-3.5-Flash" with the upstream's code "405" copied into the
// HTTP status, truefoundry/models#913; corpus
// truefoundry-405-deepinfra-json-object-response-format-not-supported-for-model):
// not Method Not Allowed but one model lacking JSON mode, which other
// models serve: unknown, as a 410 whose words say a feature of the
// request is gone is. Any method word (GET, POST, …, "method", "requests
// are accepted") keeps the 405 fixed: Cloudflare's "GET not supported for
// requested URI." stays bad_request.
func TestRoundFiftyFourC405ModelCapabilityGap(t *testing.T) {
	tf := `{"status":"failure","message":"deepinfra error: json_object response format is not supported for model: stepfun-ai/Step-3.5-Flash","error":{"message":"deepinfra error: json_object response format is not supported for model: stepfun-ai/Step-3.5-Flash","type":"APIError","code":"405"},"error_origin_level":"api_error","provider":"deepinfra"}`
	run(t, []tc{
		{"TrueFoundry relaying DeepInfra's JSON-mode gap", 405, nil, tf, false, "unknown", "405:model-gap"},
		{"the model does not support tools", 405, nil, `{"error":{"message":"The model does not support tool calling."}}`, false, "unknown", "405:model-gap"},

		// Near answers: every 405 that names a method, or says nothing
		// of a model, stays fixed.
		{"Cloudflare's GET not supported", 405, nil, `{"result":null,"success":false,"errors":[{"code":7001,"message":"GET not supported for requested URI."}],"messages":[]}`, false, "bad_request", "status:405"},
		{"GPT4All's only POST", 405, nil, `{"error":{"message":"Only POST requests are accepted.","type":"invalid_request_error","param":null,"code":"method_not_supported"}}`, false, "bad_request", "status:405"},
		{"Reka's Method Not Allowed", 405, nil, `{"detail":"Method Not Allowed"}`, false, "bad_request", "status:405"},
		{"a method beside model words", 405, nil, `{"error":{"message":"GET is not supported for model endpoints."}}`, false, "bad_request", "status:405"},
		{"method in words beside a model", 405, nil, `{"error":{"message":"This method is not supported for model: x"}}`, false, "bad_request", "status:405"},
		{"a gap not said of a model", 405, nil, `{"error":{"message":"Streaming is not supported."}}`, false, "bad_request", "status:405"},
		{"an empty 405", 405, nil, ``, false, "bad_request", "status:405"},
	})
	// The client's words quoted back at a 405 decide nothing.
	quote := "json_object response format is not supported for model: x"
	req := `{"model":"m","messages":[{"role":"user","content":"` + quote + `"}]}`
	for _, body := range []string{
		`{"error":{"message":"Content check failed: ` + quote + `"}}`,
		`{"error":{"message":"` + quote + `"}}`,
	} {
		if v := Classify(Response{Status: 405, Body: []byte(body), Request: []byte(req), Model: "m"}); v.Class != BadRequest {
			t.Errorf("the client's words at 405 (%s): %s (%s)", body, v.Class, v.Evidence)
		}
	}
}
