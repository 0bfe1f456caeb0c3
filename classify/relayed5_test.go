package classify

import "testing"

// TestModelRelayedStatus: SageMaker's ModelError relays the container's
// status ("Received server error (500) from primary …", "Received client
// error (400) from model with message …"): read as that status.
func TestModelRelayedStatus(t *testing.T) {
	amz := map[string]string{"X-Amzn-Errortype": "ModelError"}
	run(t, []tc{
		{"server error relayed", 424, amz, `{"message": "Received server error (500) from primary and could not load the entire response body. See https://x in account 1 for more information."}`, false, "server_error", "relayed:500"},
		{"client error with an internal exception", 424, amz, `{"message": "Received client error (400) from primary with message \"{\n  \"code\": 400,\n  \"type\": \"InternalServerException\",\n  \"message\": \"GET was unable to find an engine to execute this computation\"\n}"}`, false, "server_error", "phrase:internalserverexception"},
		{"client error naming nothing", 424, amz, `{"message": "Received client error (400) from model with message \"unable to evaluate payload provided\". See https://x for more information."}`, false, "unknown", "relayed:400"},
		{"client error naming a field", 424, amz, `{"message": "Received client error (422) from primary with message \"temperature must be positive\"."}`, false, "bad_request", ""},
		{"a relayed 429", 424, amz, `{"message": "Received client error (429) from primary with message \"Too many requests\"."}`, false, "rate_limited", ""},
		{"not at the start: no relay", 424, amz, `{"message": "Model said: Received server error (500) from primary"}`, false, "unknown", "status:424"},
	})
	req := []byte(`{"inputs":"Received server error (500) from primary"}`)
	if v := Classify(Response{Status: 424, Body: []byte(`{"message": "Received server error (500) from primary"}`), Request: req}); v.Class == ServerError {
		t.Errorf("echoed relay: %+v", v)
	}
}

// TestNodeSDKRelayedStatus: a proxy built on the OpenAI Node SDK rethrows
// an upstream error as its own 5xx whose message is the SDK's
// "<status> <message>": read as that 4xx.
func TestNodeSDKRelayedStatus(t *testing.T) {
	run(t, []tc{
		{"400 unable to access model", 500, nil, `{"requestId":"e","statusCode":500,"timestamp":"2024-10-01T15:31:02.168Z","path":"/chat/completions","message":"400 Unable to access model gpt-4o-mini. "}`, false, "unavailable", "phrase:unable to access model"},
		{"429 relayed", 500, nil, `{"statusCode":500,"message":"429 Rate limit reached for requests"}`, false, "rate_limited", ""},
		{"401 relayed", 500, nil, `{"statusCode":500,"message":"401 Incorrect API key provided: sk-abc"}`, false, "auth", "relayed:401"},
		{"a number in prose is no status", 500, nil, `{"message":"400 workers crashed while loading"}`, false, "server_error", "status:500"},
		{"a 5xx number stays the 5xx", 500, nil, `{"message":"503 Service Unavailable"}`, false, "server_error", "status:500"},
	})
	req := []byte(`{"messages":[{"role":"user","content":"400 Unable to access model"}]}`)
	if v := Classify(Response{Status: 500, Body: []byte(`{"message":"400 Unable to access model"}`), Request: req}); v.Class != ServerError {
		t.Errorf("echoed relay: %+v", v)
	}
}
