package classify

import "testing"

// A param naming a request field other than the model makes a gone-model
// wording that field's value, not the endpoint's state: a client's bogus
// nested model name must not cool the endpoint (found by the hostile review
// of the third corpus round).
func TestParamOtherThanModelScopesEndpointWording(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"a tool's model id, invalid_value",
			`{"error":{"message":"Invalid value for 'tools[0].model': the model ID is invalid (got 'dall-e-9').","type":"invalid_request_error","param":"tools[0].model","code":"invalid_value"}}`,
			"bad_request"},
		{"a tool's model name, no code",
			`{"error":{"message":"The model name is invalid: 'dall-e-9'","type":"invalid_request_error","param":"tools[0].model","code":null}}`,
			"bad_request"},
		// Access wording beside a param stays the account's state, as for
		// an organization that must be verified to stream (corpus
		// openai-organization-must-be-verified-stream-400).
		{"a gated service tier",
			`{"error":{"message":"The service_tier 'priority' is only authorized for use by Scale Tier customers.","type":"invalid_request_error","param":"service_tier","code":"invalid_value"}}`,
			"forbidden"},
		// The model itself keeps the endpoint's class.
		{"the model Detour sent",
			`{"error":{"message":"The model ID is invalid for this endpoint.","type":"invalid_request_error","param":"model","code":null}}`,
			"unavailable"},
		{"no param",
			`{"error":{"message":"This key is only authorized for use with the batch service."}}`,
			"forbidden"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 400, Body: []byte(c.body), Model: "gpt-5"})
			if v.Class.String() != c.want {
				t.Errorf("class %s (%s), want %s", v.Class, v.Evidence, c.want)
			}
		})
	}
}

// A relayed exception name is no field path, whatever its last part ends
// with: a provider outage relayed in a 400 must not stop the walk.
func TestExceptionNamesAreNotFieldPaths(t *testing.T) {
	for _, msg := range []string{
		"google.api_core.exceptions.ServiceUnavailable: 503 failed to connect to all addresses",
		"httpx.ReadTimeout: upstream did not respond",
		"httpcore.RemoteProtocolError: peer closed connection",
	} {
		if fieldPathPrefix([]byte(msg)) {
			t.Errorf("%q read as a field path", msg)
		}
	}
	for _, msg := range []string{"GenerateContentRequest.contents: contents is not specified", "messages.1.content: Input should be a valid string"} {
		if !fieldPathPrefix([]byte(msg)) {
			t.Errorf("%q not read as a field path", msg)
		}
	}
}

// A capability gap that names its request path inside the message is still
// a gap (unknown: the walk moves on to a target that may take the input);
// a path at the message's start, or one relayed with no capability wording,
// is bad input.
func TestCapabilityGapOutranksARelayedFieldPath(t *testing.T) {
	for _, c := range []struct{ name, body, want string }{
		{"gap naming its path mid-message",
			`{"message":"The model returned the following errors: messages.0.content.1.image: This model does not support image input."}`, "unknown"},
		{"relayed field error, no gap",
			`{"message":"The model returned the following errors: messages.1.content.0.type: Expected one of text, image"}`, "bad_request"},
	} {
		t.Run(c.name, func(t *testing.T) {
			v := Classify(Response{Status: 400, Body: []byte(c.body)})
			if v.Class.String() != c.want {
				t.Errorf("class %s (%s), want %s", v.Class, v.Evidence, c.want)
			}
		})
	}
}

// The same holds for a gone-model code (found by the hostile review of
// client steering): model_not_found beside param tools[0].model is the
// client's tool model, not the endpoint's.
func TestGoneModelCodeBesideAnotherFieldIsThatFields(t *testing.T) {
	v := Classify(Response{Status: 400, Model: "gpt-4.1",
		Body:    []byte(`{"error":{"message":"The model 'gpt-image-x1' does not exist.","type":"invalid_request_error","param":"tools[0].model","code":"model_not_found"}}`),
		Request: []byte(`{"model":"r","input":"draw a cat","tools":[{"type":"image_generation","model":"gpt-image-x1"}]}`)})
	if v.Class != BadRequest {
		t.Errorf("%s (%s), want bad_request", v.Class, v.Evidence)
	}
	v = Classify(Response{Status: 404, Model: "gpt-4.1",
		Body: []byte(`{"error":{"message":"The model 'gpt-4.1' does not exist.","type":"invalid_request_error","param":"model","code":"model_not_found"}}`)})
	if v.Class != Unavailable {
		t.Errorf("the endpoint's own model: %s (%s), want unavailable", v.Class, v.Evidence)
	}
}
