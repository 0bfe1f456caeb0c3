package classify

import "testing"

// Round 52's third rules (hunt 52f): a reasoning item's signature or
// encrypted content that the endpoint cannot verify, in a 4xx, is the
// client's replayed history (bad_request), as OpenAI's
// invalid_encrypted_content and Gemini's "Corrupted thought signature." are;
// each beside the near answers it must leave alone.
func TestRoundFiftyTwoCRules(t *testing.T) {
	aws := map[string]string{"x-amzn-errortype": "ValidationException"}
	run(t, []tc{
		// Bedrock Converse (corpus bedrock-400-signature-in-reasoningcontent-…).
		{"Bedrock's reasoningContent signature", 400, aws, `{"message":"The signature in the reasoningContent block at messages.1.content.0 is invalid"}`, false, "bad_request", ""},
		{"a thinking block's signature", 400, nil, `{"error":{"message":"The signature in the thinking block at messages.3.content.0 is invalid"}}`, false, "bad_request", ""},
		// Bedrock Mantle's Responses API (corpus bedrock-mantle-400-…).
		{"Mantle's encrypted content prefix", 400, nil, `{"error":{"type":"invalid_request_error","code":"validation_error","message":"encrypted content missing recognized prefix (expected ` + "`rsn_` or `smry_`" + `)"}}`, false, "bad_request", ""},
		{"encrypted_content is invalid", 400, nil, `{"error":{"message":"The reasoning item's encrypted_content is invalid."}}`, false, "bad_request", ""},
		{"OpenAI's reason without its code", 400, nil, `{"error":{"message":"Reason: Encrypted content could not be decrypted or parsed.","type":"invalid_request_error","param":null,"code":null}}`, false, "bad_request", ""},
		// Gemini (corpus gemini-400-unable-to-submit-request-thought-signature-is-invalid).
		{"Gemini's thought_signature is invalid", 400, nil, `{"error": {"code": 400, "message": "Unable to submit request because thought_signature is invalid.", "status": "INVALID_ARGUMENT"}}`, false, "bad_request", ""},
		{"a thought signature is invalid", 400, nil, `{"error":{"code":400,"message":"Thought signature is invalid.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", ""},

		// Near answers: no invalidity word, another signature, another
		// sentence, another status.
		{"encrypted content not supported stays unknown", 400, nil, `{"error":{"message":"Encrypted content is not supported with this model.","type":"invalid_request_error","param":"include","code":null}}`, false, "unknown", ""},
		{"encrypted content not issued to this caller stays unknown", 400, nil, `{"error":{"message":"The reasoning ` + "`encrypted_content`" + ` was not issued to this caller."}}`, false, "unknown", ""},
		{"a request signature stays auth", 403, aws, `{"message":"The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method."}`, false, "auth", ""},
		{"a signature in the header is no reasoning item", 400, nil, `{"error":{"message":"The signature in the Authorization header is invalid"}}`, false, "unknown", "status:400"},
		{"a security token stays auth", 403, aws, `{"message":"The security token included in the request is invalid."}`, false, "auth", ""},
		{"another sentence's invalidity", 400, nil, `{"error":{"message":"thought_signature ignored. Request is invalid"}}`, false, "unknown", "status:400"},
		{"a thought signature at 429 stays a throttle", 429, nil, `{"error":{"message":"Too many requests; thought_signature is invalid"}}`, false, "rate_limited", ""},
		{"a thought signature at 500 stays the server's", 500, nil, `{"error":{"message":"internal error: thought_signature is invalid"}}`, false, "server_error", ""},
		{"a missing thought_signature stays bad input", 400, nil, `{"error":{"code":400,"message":"Function call is missing a thought_signature in functionCall parts.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", ""},
	})
}

// The client's own words steer none of them; a request that merely holds
// the signature it replays does not hide the endpoint's refusal.
func TestRoundFiftyTwoCRulesIgnoreEchoes(t *testing.T) {
	for _, c := range []struct {
		name, req, body string
		status          int
		want            Class
	}{
		{"a thought_signature complaint the client wrote", `{"messages":[{"role":"user","content":"why is my thought_signature invalid"}]}`,
			`{"error":{"message":"Content check failed: why is my thought_signature invalid"}}`, 400, Unknown},
		{"an encrypted content complaint the client wrote", `{"input":"encrypted content missing recognized prefix, what now?"}`,
			`{"error":{"message":"Moderation failed for: encrypted content missing recognized prefix, what now?"}}`, 400, Unknown},
		{"a reasoningContent signature the client wrote", `{"messages":[{"role":"user","content":"The signature in the reasoningContent block is invalid - explain"}]}`,
			`{"error":{"message":"Content check failed: The signature in the reasoningContent block is invalid - explain"}}`, 400, Unknown},
		{"the genuine refusal of a replayed thought_signature", `{"model":"gemini-2.5-flash","messages":[{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"},"extra_content":{"google":{"thought_signature":"CtAEAY89a19P"}}}]}]}`,
			`{"error":{"code":400,"message":"Unable to submit request because thought_signature is invalid.","status":"INVALID_ARGUMENT"}}`, 400, BadRequest},
		{"the genuine refusal of a replayed encrypted_content", `{"model":"gpt-5","input":[{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"gAAAAABo"}]}`,
			`{"error":{"type":"invalid_request_error","code":"validation_error","message":"encrypted content missing recognized prefix (expected ` + "`rsn_` or `smry_`" + `)"}}`, 400, BadRequest},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(c.req), Model: "m1"})
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
