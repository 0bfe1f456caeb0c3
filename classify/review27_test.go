package classify

import "testing"

// TestReviewRoundTwentySeven: hostile review of vocabulary round 27
// (git diff ab7a35c..HEAD -- classify docs). Every case failed at a45115e;
// every one passed (or read the wanted class) at ab7a35c unless noted.
// Ark's "The parameter `X` specified in the request are not valid: <reason>"
// lets its reason decide (a gap there is unknown, a wrong value bad input):
// the corpus pins both (volcengine-response-format-json-object-…,
// volcengine-invalid-parameter-max-completion-tokens-above-maximum-400).
func TestReviewRoundTwentySeven(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// 1 STEERING -> auth (page + account cool). REAL wording: TensorZero's providers answer
		// a Dynamic credential the request did not carry with ErrorDetails::ApiKeyMissing
		// {message: "Dynamic api key `{key_name}` is missing"}, shown as
		// "API key missing for provider {p}: {message}", StatusCode::BAD_REQUEST
		// (tensorzero-core src/error.rs; providers/*: XAICredentials::Dynamic ... ok_or_else).
		// The key is the one the CLIENT should have sent in `credentials`; omitting the member is
		// exactly the case carriesCredential cannot see. ab7a35c: unknown (status:400).
		{name: "tensorzero dynamic key the client did not send", status: 400,
			body: "{\"error\":\"API key missing for provider openai: Dynamic api key `openai_api_key` is missing\"}",
			req:  `{"model":"tensorzero::model_name::openai::gpt-4o","messages":[{"role":"user","content":"hi"}]}`, model: "tensorzero::model_name::openai::gpt-4o",
			notAny: []Class{Auth, Quota}},

		// 2 STEERING/MISREAD -> quota. "usage limit exceeded" (weak quota, meant for Portkey's key
		// cap) ranks before "rate limit" and before the 429 default: a per-user throttle worded
		// "AI usage limit exceeded. Please try again in a moment." (REAL wording of an app backend's
		// 429 handler, public code id 59680005584; not an LLM vendor) becomes quota even beside the
		// words "Rate limit exceeded.". ab7a35c: rate_limited (phrase:rate limit / status:429).
		{name: "usage limit with try again in a moment", status: 429,
			body: `{"message":"Rate limit exceeded.","detail":"AI usage limit exceeded. Please try again in a moment."}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "concurrency usage limit (invented)", status: 429,
			body: `{"error":{"message":"Concurrent usage limit exceeded. Please retry shortly."}}`,
			req:  chat, model: "m", want: RateLimited},

		// 3 STEERING/MISREAD -> quota via retry-after>=1h. INVENTED shape, mechanism: "resets in"
		// states a window's reset, not the wait for THIS answer; nextRetryHint takes the first
		// "resets in" anywhere in the texts, even when the per-minute wording decided the class.
		// ab7a35c: rate_limited (phrase:per minute).
		{name: "per-minute throttle beside a weekly window", status: 429,
			body: `{"error":{"message":"Weekly limit resets in 6d. Rate limit of 20 requests per minute exceeded, please slow down."}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "per-minute throttle with a daily status line", status: 429,
			body: `{"error":{"message":"Too many requests: 60 requests per minute allowed. Usage: 80% of daily tokens used, resets in 9h."}}`,
			req:  chat, model: "m", want: RateLimited},

		// 4 A bad-input code beside the param still proves bad input over
		// the gap's wording (docs/behaviour.md, "A capability gap outranks a
		// bare param"); the review found the docs naming a code the table
		// does not hold (invalid_parameter), corrected. INVENTED body.
		{name: "a bad-input code beside the param", status: 400,
			body: `{"error":{"message":"n is not supported when stream is true.","type":"invalid_request_error","param":"n","code":"unsupported_value"}}`,
			req:  `{"model":"m","messages":[],"n":2,"stream":true}`, model: "m", want: BadRequest},

		// 6 MISREAD (lower). "missing `" (badInput) reads any backticked missing name as the
		// client's member: a gateway saying Detour's own credential header is absent becomes
		// bad_request (walk stops, client told not to retry). INVENTED. ab7a35c: unknown.
		{name: "missing credential header is not the client's member", status: 400,
			body: "{\"error\":\"Missing `Authorization` header\"}",
			req:  chat, model: "m", notAny: []Class{BadRequest}},
	})
}
