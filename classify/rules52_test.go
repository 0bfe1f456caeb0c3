package classify

import "testing"

// Round 52's rules, each beside the answer a client could make it read:
// text the client sent is no evidence.
func TestRoundFiftyTwoRules(t *testing.T) {
	// TensorZero's AllVariantsFailed 502 (corpus
	// tensorzero-502-all-variants-failed-vllm-400-encoder-cache-size, from
	// vllm-project/vllm#34040): its provider's status printed as Rust's
	// StatusCode prints one ("400 Bad Request"), then " from <provider>
	// client: " and the provider's body.
	const vllm400 = `{\"error\":{\"message\":\"The decoder prompt contains a(n) image item with length 6042, which exceeds the pre-allocated encoder cache size 4800. Please reduce the input size or increase the encoder cache size by setting --limit-mm-per-prompt at startup.\",\"type\":\"BadRequestError\",\"code\":400}}`
	// Built from that cited case's form (the lead, the connector), with
	// OpenAI's documented insufficient_quota 429 as the provider's body;
	// a TensorZero log of this shape was seen but its source could not be
	// cited, so it is not in the corpus.
	const quota429 = `{\n    \"error\": {\n        \"message\": \"You exceeded your current quota, please check your plan and billing details.\",\n        \"type\": \"insufficient_quota\",\n        \"param\": null,\n        \"code\": \"insufficient_quota\"\n    }\n}\n`
	const rl429 = `{\"error\":{\"message\":\"Rate limit reached for requests\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}`
	tz := func(inner string) string {
		return `{"error":"All variants failed with errors: v1: All model providers failed to infer with errors: p: ` + inner + `"}`
	}
	run(t, []tc{
		{"a 4xx and its reason phrase before a body, in a 5xx", 502, nil,
			tz(`Error 400 Bad Request from vllm client: ` + vllm400), false, "overflow", "phrase:limit-mm-per-prompt"},
		{"a quota 429 so relayed (form of the cited case)", 502, nil,
			tz(`Error 429 Too Many Requests from openai client: ` + quota429), false, "quota", "code:insufficient_quota"},
		{"several relayed: the last decides", 502, nil,
			`{"error":"All variants failed with errors: a: All model providers failed to infer with errors: openai: Error 429 Too Many Requests from openai client: ` + rl429 + `\nb: All model providers failed to infer with errors: openai: Error 429 Too Many Requests from openai client: ` + quota429 + `"}`, false, "quota", ""},
		{"the status alone where the body says nothing", 502, nil,
			tz(`Error 404 Not Found from vllm client: {\"detail\":\"x\"}`), false, "unavailable", "relayed:404"},
		{"TensorZero's older form, Raw response", 502, nil,
			`{"error":"Error from openai server: Invalid status code: 429 Too Many Requests\nRaw response: ` + quota429 + `"}`, false, "quota", ""},
		{"a plain-text 500 so relayed", 500, nil,
			`upstream: 401 Unauthorized - {"error":{"message":"Incorrect API key provided","type":"invalid_request_error","code":"invalid_api_key"}}`, false, "auth", ""},
		// Not a relayed status: a phrase that is not the status's own, no
		// body after it, a 5xx quoted, or a 4xx answer.
		{"a reason phrase not the status's", 502, nil,
			tz(`Error 400 Bad Thing from vllm client: ` + vllm400), false, "server_error", "status:502"},
		{"no body after it", 500, nil,
			`{"error":{"message":"Portkey API error: 400 Bad Request"}}`, false, "server_error", "status:500"},
		{"a 5xx so quoted stays the 5xx", 502, nil,
			tz(`Error 503 Service Unavailable from vllm client: {\"error\":{\"message\":\"busy\"}}`), false, "server_error", ""},
		{"in a 4xx the rule is not read", 400, nil,
			`{"error":"Error 429 Too Many Requests from openai client: ` + quota429 + `"}`, false, "quota", ""},

		// Amazon API Gateway's usage-plan quota (QUOTA_EXCEEDED) against
		// its throttle (THROTTLED).
		{"API Gateway's spent usage plan", 429, nil, `{"message":"Limit Exceeded"}`, false, "quota", "message:Limit Exceeded"},
		{"its error type alone", 429, map[string]string{"x-amzn-ErrorType": "LimitExceededException"}, `{"message":"x"}`, false, "quota", "bedrock:limitexceededexception"},
		{"API Gateway's throttle", 429, nil, `{"message":"Too Many Requests"}`, false, "rate_limited", ""},
		{"API Gateway's throttle with its type", 429, map[string]string{"x-amzn-ErrorType": "TooManyRequestsException"}, `{"message":"Too Many Requests"}`, false, "rate_limited", ""},
		{"a rate limit exceeded is no spent quota", 429, nil, `{"message":"Rate Limit Exceeded"}`, false, "rate_limited", ""},
		{"a limit exceeded in a sentence", 429, nil, `{"message":"Token limit exceeded for this minute"}`, false, "rate_limited", ""},

		// LiteLLM's router: no deployment for the model it was sent.
		{"no healthy deployments", 400, nil, `{"error":{"message":"litellm.BadRequestError: You passed in model=gpt-4o. There are no healthy deployments for this model. Received Model Group=gpt-4o\nAvailable Model Group Fallbacks=None","type":null,"param":null,"code":"400"}}`, false, "unavailable", "phrase:there are no healthy deployments for this model"},
		{"no healthy deployments at 500", 500, nil, `{"error":{"message":"litellm.InternalServerError: You passed in model=gpt-4o. There are no healthy deployments for this model","type":null,"param":null,"code":"500"}}`, false, "unavailable", "phrase:there are no healthy deployments for this model"},
		{"no model_name", 400, nil, `{"error":{"message":"litellm.BadRequestError: You passed in model=x. There is no 'model_name' with this string \nReceived Model Group=x","type":null,"param":null,"code":"400"}}`, false, "unavailable", "phrase:there is no 'model_name' with this string"},
		{"no deployments available, cooling", 429, nil, `{"error":{"message":"No deployments available for selected model, Try again in 60 seconds. Passed model=gpt-4o.","type":"None","param":"None","code":"429"}}`, false, "rate_limited", ""},
		{"no healthy provider in a pool is down", 500, nil, `{"error":{"message":"No healthy provider found in pool claude-kiro-oauth supporting model claude-x"}}`, false, "server_error", ""},
	})
}

// The client's own words steer none of them.
func TestRoundFiftyTwoRulesIgnoreEchoes(t *testing.T) {
	const quota429 = `{\"error\":{\"message\":\"You exceeded your current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}`
	for _, c := range []struct {
		name, req, body string
		status          int
		hdr             string
		want            Class
	}{
		{"a relayed status the client wrote", `{"messages":[{"role":"user","content":"print Error 429 Too Many Requests from openai client: {\"error\":{\"message\":\"You exceeded your current quota\",\"type\":\"insufficient_quota\",\"code\":\"insufficient_quota\"}}"}]}`,
			`{"error":"tool call returned: Error 429 Too Many Requests from openai client: ` + quota429 + `"}`, 502, "", ServerError},
		{"the status of a URL the client sent", `{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://img.example.com/cat.png"}}]}]}`,
			`{"error":"failed to fetch https://img.example.com/cat.png: 403 Forbidden: {\"error\":{\"message\":\"denied\"}}"}`, 502, "", ServerError},
		{"a relayed status the client wrote before another object", `{"messages":[{"role":"user","content":"say Error 429 Too Many Requests from openai client: "}]}`,
			`{"error":"tool call returned: Error 429 Too Many Requests from openai client: ` + quota429 + `"}`, 502, "", ServerError},
		{"Limit Exceeded the client wrote", `{"messages":[{"role":"user","content":"Limit Exceeded"}]}`,
			`{"message":"Limit Exceeded"}`, 429, "", RateLimited},
		{"no healthy deployments the client wrote", `{"messages":[{"role":"user","content":"There are no healthy deployments for this model"}]}`,
			`{"error":{"message":"Invalid prompt for model=gpt-4o: There are no healthy deployments for this model"}}`, 400, "", Unknown},
		{"the same sentence the client did not write", `{"messages":[{"role":"user","content":"hi"}]}`,
			`{"error":{"message":"Invalid prompt for model=gpt-4o: There are no healthy deployments for this model"}}`, 400, "", Unavailable},
	} {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Request: []byte(c.req), Model: "gpt-4o"})
		if v.Class != c.want {
			t.Errorf("%s: %s (%s), want %s", c.name, v.Class, v.Evidence, c.want)
		}
	}
}
