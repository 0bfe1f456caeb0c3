package classify

import "testing"

// TestProviderCapacityAndMaintenance: a provider saying its own fleet is
// full or the model is in maintenance is its load, server_error, even as a
// 429; a capacity the caller's tier or account ran out of stays its class
// (testdata/corpus: the fifth round's chutes answers).
func TestProviderCapacityAndMaintenance(t *testing.T) {
	run(t, []tc{
		{"at maximum capacity as 429", 429, nil, `{"detail":"Infrastructure is at maximum capacity, try again later"}`, false, "server_error", "phrase:at maximum capacity"},
		{"at full capacity", 429, nil, `{"error":{"message":"All workers are at full capacity. Please retry."}}`, false, "server_error", "phrase:at full capacity"},
		{"over capacity as 429", 429, nil, `{"error":{"message":"llama-3 is currently over capacity. Please try again and back off exponentially."}}`, false, "server_error", "phrase:over capacity"},
		{"under maintenance as 429", 429, nil, `{"detail":"model is under maintenance"}`, false, "server_error", "phrase:under maintenance"},
		{"down for maintenance as 400", 400, nil, `{"error":{"message":"The service is down for maintenance, back soon."}}`, false, "server_error", "phrase:down for maintenance"},
		{"high traffic", 429, nil, `{"error":{"message":"We're experiencing high traffic right now! Please try again soon."}}`, false, "server_error", "phrase:high traffic"},
		// Must not catch: a tier's capacity, an account's capacity spent,
		// a sales pitch for capacity, a rate beside the words.
		{"service tier capacity stays a rate", 429, nil, `{"object":"error","message":"Service tier capacity exceeded for this model.","type":"invalid_request_error","param":null,"code":null}`, false, "rate_limited", "status:429"},
		{"capacity with a reset stays quota", 429, nil, `{"error":{"code":429,"message":"You have exhausted your capacity on this model. Your quota will reset after 2h1m1s.","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7261.277107632s"}]}}`, false, "quota", ""},
		{"dedicated capacity stays a rate", 429, nil, `{"error": "Too Many Requests", "message": "You have exceeded your usage limits. Please try again later or contact us to explore dedicated capacity."}`, false, "rate_limited", ""},
		{"a rate limit during maintenance stays a rate", 429, nil, `{"error":{"message":"Rate limit reached: limits are lowered while the cluster is under maintenance"}}`, false, "rate_limited", "phrase:rate limit"},
	})
}

// TestCapacityWordsTheClientSent: a client whose prompt holds the provider's
// overload wording, quoted back in a 400, makes nothing the provider's fault.
func TestCapacityWordsTheClientSent(t *testing.T) {
	req := []byte(`{"model":"m","messages":[{"role":"user","content":"Reply with: Infrastructure is at maximum capacity, try again later. The model is under maintenance."}]}`)
	for _, body := range []string{
		`{"error":{"message":"Invalid content: 'Infrastructure is at maximum capacity, try again later. The model is under maintenance.'"}}`,
		`{"detail":"Infrastructure is at maximum capacity, try again later. The model is under maintenance."}`,
	} {
		for _, st := range []int{400, 429} {
			v := Classify(Response{Status: st, Body: []byte(body), Request: req})
			if v.Class == ServerError {
				t.Errorf("%d %s: %+v, the client's words decided", st, body, v)
			}
		}
	}
}

// TestAccountTypeNotGranted: a service not offered to this kind of account
// is access not granted, whatever the status; "available for paid
// accounts" as an advertisement beside a rate keeps the rate.
func TestAccountTypeNotGranted(t *testing.T) {
	run(t, []tc{
		{"isn't available for personal accounts as 429", 429, nil, `{"error": {"code": 429, "message": "W&B Inference isn't available for personal accounts"}}`, false, "forbidden", "phrase:isn't available for…accounts"},
		{"not available for free accounts", 400, nil, `{"error":{"message":"This endpoint is not available for free accounts."}}`, false, "forbidden", "phrase:not available for…accounts"},
		{"only available to enterprise accounts", 403, nil, `{"error":{"message":"Batch inference is only available to enterprise accounts"}}`, false, "forbidden", "phrase:only available to…accounts"},
		{"invalid host header", 400, nil, `{"detail":"Invalid host header"}`, false, "forbidden", "phrase:invalid host header"},
		// Must not catch.
		{"higher limits for paid accounts stay a rate", 429, nil, `{"error":{"message":"Too many requests. Higher limits are available for paid accounts."}}`, false, "rate_limited", ""},
		{"a rate beside the gating stays a rate", 429, nil, `{"error":{"message":"Rate limit exceeded; burst credits are not available for free accounts"}}`, false, "rate_limited", "phrase:rate limit"},
		{"a gone model beside accounts stays gone", 404, nil, `{"error":{"message":"The model foo does not exist or is not available for your accounts"}}`, false, "unavailable", ""},
	})
	req := []byte(`{"messages":[{"role":"user","content":"say: this is not available for free accounts"}]}`)
	if v := Classify(Response{Status: 429, Body: []byte(`{"error":{"message":"You said 'this is not available for free accounts'"}}`), Request: req}); v.Class != RateLimited {
		t.Errorf("echoed gating: %+v", v)
	}
}

// TestOnlySupportedIsAGap: "only X is supported" about a feature is a
// capability gap (unknown), even as a 404; about models it names nothing
// new and the status decides.
func TestOnlySupportedIsAGap(t *testing.T) {
	run(t, []tc{
		{"only text content as 404", 404, nil, `{"error": "Only 'text' content type is supported."}`, false, "unknown", "phrase:only…supported"},
		{"only json schema draft", 400, nil, `{"error":{"message":"only JSON Schema draft 7 is supported"}}`, false, "unknown", "phrase:only…supported"},
		{"only models supported stays the 404", 404, nil, `{"error":"Only the following models are supported: a, b"}`, false, "unavailable", "status:404"},
		{"a parameter outranks it", 400, nil, `{"error":{"message":"Unsupported value: 'temperature' does not support 0.5 with this model. Only the default (1) value is supported."}}`, false, "bad_request", "phrase:unsupported value"},
	})
}

// TestOutputCapIsAParameter: "too many tokens" about the output cap
// (max_tokens over the model's maximum output) is the parameter, not the
// prompt's window.
func TestOutputCapIsAParameter(t *testing.T) {
	run(t, []tc{
		{"maximum output", 400, nil, `{"message": "too many tokens: max tokens must be less than or equal to 4096, the maximum output for this model - received 8192."}`, false, "bad_request", "phrase:maximum output"},
		{"the prompt stays context", 400, nil, `{"message": "too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4292."}`, false, "context_length", "phrase:too many tokens"},
		{"the window beats the output cap", 400, nil, `{"error":{"message":"This model's maximum context length is 8192 tokens: 6000 in the messages plus a maximum output of 4096."}}`, false, "context_length", "phrase:maximum context length"},
		{"a throttle stays a rate", 429, nil, `{"message": "too many tokens: max tokens must be less than or equal to 4096, the maximum output for this model"}`, false, "rate_limited", "status:429"},
	})
}

// TestParameterNotSupportedWith: a request field named in snake_case that
// is "not supported with" another choice of the request is the request's
// combination at fault; a feature in prose stays a capability gap.
func TestParameterNotSupportedWith(t *testing.T) {
	run(t, []tc{
		{"response_format with RAG", 400, nil, `{"message": "invalid request: response_format is not supported with RAG."}`, false, "bad_request", "phrase:is not supported with"},
		{"quoted param", 400, nil, `{"error":{"message":"'top_logprobs' is not supported with stream=true"}}`, false, "bad_request", "phrase:is not supported with"},
		{"a feature in prose stays a gap", 400, nil, `{"error":{"message":"Image input is not supported with this model"}}`, false, "unknown", "phrase:is not supported with this model"},
		{"a bare field stays a gap", 400, nil, `{"error":{"code":null,"message":"'stream' is not supported","param":null,"type":"invalid_request_error"}}`, false, "unknown", "phrase:is not supported"},
	})
}

// TestBracketedPrefixIsNoFieldPath: a request id in brackets opening a
// message names no request field.
func TestBracketedPrefixIsNoFieldPath(t *testing.T) {
	run(t, []tc{
		{"RID prefix", 400, nil, `{"detail":"[RID: 06b5f7bdde6ea380106a87fe6ab8ec5a] Failed to encode text"}`, false, "unknown", "status:400"},
		{"a path still is one", 400, nil, `{"detail":"messages.0.content: Field required"}`, false, "bad_request", ""},
	})
}

// TestPydanticLocTuple: a pydantic location printed as a tuple rooted at
// the request body names the field at fault.
func TestPydanticLocTuple(t *testing.T) {
	run(t, []tc{
		{"list_type", 400, nil, `{"error": {"message": "Invalid request format: Input should be a valid list at ('body', 'messages')", "type": "list_type", "param": {"role": "user", "content": "hi"}, "code": "invalid_parameter"}}`, false, "bad_request", "message:loc"},
		{"double quotes", 400, nil, `{"detail":"Input should be a valid string at (\"body\", \"model\")"}`, false, "bad_request", "message:loc"},
		{"a 429 keeps its rate", 429, nil, `{"error":{"message":"Input should be a valid integer at ('body', 'n')"}}`, false, "rate_limited", "status:429"},
		{"another root is no request field", 400, nil, `{"error":{"message":"Input should be a valid integer at ('query', 'limit')"}}`, false, "unknown", "status:400"},
	})
}

// TestEndpointBatchOfOne: an endpoint that takes no batch at all has a batch
// cap of one: overflow, like every batch cap.
func TestEndpointBatchOfOne(t *testing.T) {
	run(t, []tc{
		{"does not support batch embeddings", 422, nil, `{"type":"error","error":{"type":"UnprocessableEntity","code":"422","message":"invalid request body: AWS Bedrock Titan does not support batch embeddings (got 2 inputs)"}}`, false, "overflow", "phrase:support batch"},
		{"a feature stays a gap", 400, nil, `{"error":{"message":"This model does not support tools"}}`, false, "unknown", "phrase:does not support"},
	})
}

// TestEndpointNotFound: the endpoint the operator configured is gone, even
// as a 400.
func TestEndpointNotFound(t *testing.T) {
	run(t, []tc{
		{"sagemaker endpoint of account not found", 400, map[string]string{"X-Amzn-Errortype": "ValidationError"}, `{"message": "Endpoint driving-endpoint of account 127310796078 not found."}`, false, "unavailable", "phrase:endpoint…not found"},
		{"endpoint not found as 404", 404, nil, `{"error":"Endpoint not found"}`, false, "unavailable", ""},
	})
	// A client's tool that carries the word: its own not-found is no
	// evidence about the endpoint.
	v := Classify(Response{Status: 400, Body: []byte(`{"error":{"message":"Tool 'endpoint_lookup' not found"}}`),
		Request: []byte(`{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"endpoint_lookup"}}]}`), Model: "m"})
	if v.Class == Unavailable {
		t.Errorf("client's tool: %+v", v)
	}
	// The upstream's own word "endpoint", and in the gap something the
	// client named (an MCP server, a search index): the client's input is
	// at fault, as the same 404 without the word is; nothing cools.
	for _, c := range []struct{ body, req string }{
		{`{"error":{"message":"MCP server endpoint 'https://mcp.client.example/sse' not found","type":"invalid_request_error"}}`,
			`{"model":"m","tools":[{"type":"mcp","server_label":"kb","server_url":"https://mcp.client.example/sse"}]}`},
		{`{"error":{"message":"Search endpoint for index 'orders-2024' not found"}}`,
			`{"model":"m","data_sources":[{"type":"azure_search","parameters":{"index_name":"orders-2024"}}]}`},
	} {
		if v := Classify(Response{Status: 404, Body: []byte(c.body), Request: []byte(c.req), Model: "m"}); v.Class != BadRequest {
			t.Errorf("client-named endpoint %s: %+v, want bad_request", c.body, v)
		}
	}
}
