package classify

import (
	"net/http"
	"testing"
)

// review 28d: a hostile review of the rules of 0e39556 and 44ac255.

// TestReview28dModelNotAllowedCodeNamesTheClientsModel: code
// model_not_allowed is now a strong Forbidden code, and strong codes
// outrank the taught phrases, so the ourModel scoping those phrases got in
// review 28b does not apply: whatever model the text names, the endpoint is
// forbidden. Gateways that send the code word it "Model not allowed: <id>"
// (the Clawbox proxy: `400 {"error":{"message":"Model not allowed: …",
// "code":"model_not_allowed"}}`) or "This API key does not have access to
// <id>." (a Next.js gateway's 403/400 form). Where <id> is a model only the
// client's request names (a tool's), the client-named check (notfound.go)
// does not see the name after "not allowed:" or "access to", and the
// verdict is forbidden at a 400: no failover, and the endpoint cools after
// failure_threshold for every client. Before 0e39556 both were unknown.
func TestReview28dModelNotAllowedCodeNamesTheClientsModel(t *testing.T) {
	tool := `{"model":"gpt-4o","input":"draw a cat","tools":[{"type":"image_generation","model":"dall-e-2"}]}`
	runHostile(t, []hostileCase{
		{name: "model not allowed: a tool's model, with the code", status: 400,
			body: `{"error":{"message":"Model not allowed: dall-e-2","code":"model_not_allowed"}}`,
			req:  tool, model: "gpt-4o", notAny: []Class{Forbidden}},
		{name: "the key lacks access to a tool's model, with the code", status: 400,
			body: `{"error":{"type":"invalid_request_error","code":"model_not_allowed","message":"This API key does not have access to dall-e-2."}}`,
			req:  tool, model: "gpt-4o", notAny: []Class{Forbidden}},
		// review 28b's own wording, now with the code beside it.
		{name: "tool model not allowed, with the code", status: 400,
			body: `{"error":{"message":"Tool model not allowed: dall-e-2","type":"invalid_request_error","code":"model_not_allowed"}}`,
			req:  tool, model: "gpt-4o", notAny: []Class{Forbidden}},
		// Control: the model Detour sent is the one refused.
		{name: "our model not allowed, with the code", status: 400,
			body: `{"error":{"message":"Model not allowed: gpt-4o","code":"model_not_allowed"}}`,
			req:  tool, model: "gpt-4o", want: Forbidden},
	})
}

// TestReview28dUnavailableNowOutsideTheDeserializer: "is unavailable now"
// is meant for DeepSeek's switched-off feature "inside its deserializer's
// words" (response_format), but the phrase is read anywhere and an unknown
// phrase overrides the status default. "<X> is unavailable now, please try
// again later" is a common idiom for a transient outage (a 503's "Service is
// unavailable now, please try again"; "External service is unavailable now,
// please retry later."; OKX's code 70208 in a 200, "service is unavailable
// now, please try again later"), and test fixtures of LLM clients model a
// provider's "The model is unavailable now" as a generic unavailability.
// Now: a 429 with Retry-After is unknown (no cooldown, the wait dropped),
// a 404 for the model Detour sent is unknown (the gone endpoint never
// cools), a 403 is unknown, a vendor's error in a 200 is unknown.
func TestReview28dUnavailableNowOutsideTheDeserializer(t *testing.T) {
	chat := `{"model":"deepseek-r1","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a 429 throttle worded unavailable now", status: 429, header: http.Header{"Retry-After": {"30"}},
			body: `{"error":{"message":"Service is unavailable now, please retry after 30 seconds"}}`,
			req:  chat, model: "deepseek-r1", want: RateLimited},
		{name: "a 404 for our model, unavailable now", status: 404,
			body: `{"error":{"message":"The model deepseek-r1 is unavailable now","type":"invalid_request_error"}}`,
			req:  chat, model: "deepseek-r1", want: Unavailable},
		{name: "a 403, model unavailable now in the region", status: 403,
			body: `{"error":{"message":"This model is unavailable now in your region","type":"permission_error"}}`,
			req:  chat, model: "deepseek-r1", want: Forbidden},
		{name: "an error in a 200", status: 200,
			body: `{"error":{"message":"Service is unavailable now, please try again later"}}`,
			req:  chat, model: "deepseek-r1", want: ServerError},
		// Control: DeepSeek's two wordings stay a gap.
		{name: "DeepSeek's response_format type", status: 400,
			body: `{"error":{"message":"This response_format type is unavailable now","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
			req:  chat, model: "deepseek-r1", want: Unknown},
		{name: "DeepSeek's deserializer", status: 400,
			body: `{"error":{"message":"Failed to deserialize the JSON body into the target type: response_format: response_format.type ` + "`json_schema`" + ` is unavailable now at line 1 column 37554","type":"invalid_request_error"}}`,
			req:  chat, model: "deepseek-r1", want: Unknown},
	})
}
