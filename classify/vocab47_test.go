package classify

import (
	"strings"
	"testing"
)

// TestVocabularyRoundFortySeven: hunts 46c and 46d's misses
// (classify/testdata/corpus/README.md, round 47): an OAuth token endpoint's
// answer, Apigee's rate-limit policies in a 500, and OpenAI's cybersecurity
// refusal under a relay's 502. Each rule holds its near-misses, and none
// reads what the client sent.
func TestVocabularyRoundFortySeven(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	grant := `{"error":"invalid_grant","error_description":"Refresh token expired"}`
	apigee := func(fault, code string) string {
		return `{"fault":{"faultstring":"` + fault + `","detail":{"errorcode":"` + code + `"}}}`
	}
	cyber := `{"error":{"message":"This content was flagged for possible cybersecurity risk...","code":502}}`
	runHostile(t, []hostileCase{
		// RFC 6749 §5.2, as Anthropic's and Google's token endpoints send
		// it behind a login (opencode-anthropic-auth#189, cline#4080).
		{name: "oauth invalid_grant at 400", status: 400, body: grant, req: chat, model: "m", want: Auth},
		{name: "oauth invalid_client at 401", status: 401, body: `{"error":"invalid_client","error_description":"Client authentication failed"}`, req: chat, model: "m", want: Auth},
		{name: "oauth unauthorized_client, any case", status: 400, body: `{"error":"UNAUTHORIZED_CLIENT","error_description":"x"}`, req: chat, model: "m", want: Auth},
		{name: "oauth invalid_request names the token request", status: 400, body: `{"error":"invalid_request","error_description":"Missing grant_type"}`, req: chat, model: "m", want: Unknown},
		{name: "oauth invalid_scope names the token request", status: 400, body: `{"error":"invalid_scope","error_description":"bad scope"}`, req: chat, model: "m", want: Unknown},
		{name: "a bare error string is no oauth envelope", status: 400, body: `{"error":"invalid_grant"}`, req: chat, model: "m", notAny: []Class{Auth}},
		{name: "an object error is no oauth envelope", status: 400, body: `{"error":{"message":"invalid_grant"},"error_description":"x"}`, req: chat, model: "m", notAny: []Class{Auth}},
		{name: "oauth words at 429 keep the status", status: 429, body: grant, req: chat, model: "m", want: RateLimited},
		{name: "oauth words in a 500 keep the status", status: 500, body: grant, req: chat, model: "m", want: ServerError},
		{name: "the client's oauth envelope quoted by a relay", status: 400,
			body: `{"error":{"message":"litellm.BadRequestError: OpenAIException - {\"error\":\"invalid_grant\",\"error_description\":\"Refresh token expired\"}"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"` + strings.ReplaceAll(grant, `"`, `\"`) + `"}]}`, model: "m", notAny: []Class{Auth}},

		// Apigee's Quota and SpikeArrest policies: Edge's default 500, X's 429.
		{name: "apigee quota violation as a 500", status: 500, body: apigee("Rate limit quota violation. Quota limit exceeded. Identifier : _default", "policies.ratelimit.QuotaViolation"), req: chat, model: "m", want: RateLimited},
		{name: "apigee spike arrest as a 500", status: 500, body: apigee("Spike arrest violation. Allowed rate : 10ps", "policies.ratelimit.SpikeArrestViolation"), req: chat, model: "m", want: RateLimited},
		{name: "apigee spike arrest as a 429", status: 429, body: apigee("Spike arrest violation. Allowed rate : 10ps", "policies.ratelimit.SpikeArrestViolation"), req: chat, model: "m", want: RateLimited},
		{name: "apigee's own failure stays the server's", status: 500, body: apigee("Execution of ServiceCallout failed", "steps.servicecallout.ExecutionFailed"), req: chat, model: "m", want: ServerError},
		{name: "the errorcode as a message's words moves no 500", status: 500, body: `{"error":{"message":"policies.ratelimit.QuotaViolation"}}`, req: chat, model: "m", want: ServerError},
		{name: "an errorcode deeper than Apigee's is not read", status: 500, body: `{"fault":{"detail":{"x":{"errorcode":"policies.ratelimit.QuotaViolation"}}}}`, req: chat, model: "m", want: ServerError},

		// An empty account sent as a 403 (hunt 47b): Novita's flat
		// envelope, Upstage's suspended key.
		{name: "novita not enough balance", status: 403, body: `{"code":403,"reason":"NOT_ENOUGH_BALANCE","message":"not enough balance"}`, req: chat, model: "m", want: Quota},
		{name: "upstage insufficient credit", status: 403, body: `{"error":{"message":"API key suspended due to insufficient credit. Register your payment method at https://console.upstage.ai/billing to continue.","code":"api_key_is_not_allowed"}}`, req: chat, model: "m", want: Quota},
		{name: "not enough capacity is no balance", status: 429, body: `{"object":"error","message":"Service tier capacity exceeded for this model.","type":"service_tier_capacity_exceeded","param":null,"code":"3505"}`, req: chat, model: "m", notAny: []Class{Quota}},
		{name: "a suspended key alone is no balance", status: 403, body: `{"error":{"message":"Permission denied: Consumer 'api_key:x' has been suspended.","status":"PERMISSION_DENIED"}}`, req: chat, model: "m", notAny: []Class{Quota}},
		{name: "the client's words about credit are no evidence", status: 403, body: `{"error":{"message":"Blocked: why is there insufficient credit on my card"}}`,
			req: `{"model":"m","messages":[{"role":"user","content":"why is there insufficient credit on my card"}]}`, model: "m", notAny: []Class{Quota}},

		// OpenRouter's 200 with error.code 502 (mini-swe-agent#902).
		{name: "cybersecurity refusal under a relay's 502", status: 200, body: cyber, req: chat, model: "m", want: Refusal},
		{name: "cybersecurity refusal as a 502", status: 502, body: cyber, req: chat, model: "m", want: Refusal},
		{name: "the client's own words about the flag are no refusal", status: 502, body: cyber,
			req: `{"model":"m","messages":[{"role":"user","content":"what does This content was flagged for possible cybersecurity risk mean"}]}`, model: "m", notAny: []Class{Refusal}},
	})
}
