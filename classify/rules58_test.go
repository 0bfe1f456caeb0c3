package classify

import "testing"

// Round 58's rules, from hunts 58a (unusual statuses: 409, 415, 501, 401s
// that are not a bad key) and 58b (providers new to the corpus), each beside
// the near answers it must leave alone and an echo guard: the client's own
// words quoted back never steer the class. Helpers: rules56_test.go.

// (a) hunt 58a. 409 and 415 had no default (unknown) and 501 fell to the
// 5xx default (server_error). A 409 was made bad_request at first, as a
// conflict with the state of something the client named (OpenAI's batch cancel: "Cannot cancel a batch
// with status 'completed'.", the body litellm's batch tests and a Ruby
// client's comment record with 409 / openai.ConflictError; not in the
// corpus, see the README), as OpenAI's conversation_locked 400 already is;
// review 58 put it back (below). A 415 is the request's media type (Venice's
// INVALID_CONTENT_TYPE): bad_request. A 501 is an API this endpoint does not
// implement (CLOVA's 50100 "Not yet implemented"; RFC 9110): unknown, as the
// corpus's llama-server and Ollama 501s already were by their words. None
// is fixed: words naming another class still decide.
func TestRoundFiftyEightConflictMediaTypeNotImplemented(t *testing.T) {
	batch := `{"error":{"message":"Cannot cancel a batch with status 'completed'.","type":"invalid_request_error","param":null,"code":null}}`
	// A 409 stays unknown (review 58, hostile 58b): the SDKs retry it as a
	// lock timeout, and OpenAI's quota_accounting_blocked 409 is the
	// account's for a while; bad_request stopped the walk.
	want56(t, "OpenAI's batch cancel 409", classify56(409, batch, "", false), Unknown, "status:409")
	want56(t, "a bare 409", classify56(409, ``, "", false), Unknown, "status:409")
	want56(t, "OpenAI's 409 quota_accounting_blocked", classify56(409, `{"error":{"message":"Account usage requires reconciliation before another hosted request can start.","type":"conflict_error","param":null,"code":"quota_accounting_blocked"}}`, "", false), Unknown, "")
	want56(t, "a 409 that says rate limit", classify56(409, `{"error":{"message":"Rate limit exceeded. Please try again in 20s."}}`, "", false), RateLimited, "phrase:rate limit")
	want56(t, "a 409 that says quota", classify56(409, `{"error":{"message":"You exceeded your current quota, please check your plan and billing details."}}`, "", false), Quota, "")
	// A 415 stays unknown and a 501 server_error (hostile 58b): Detour
	// writes the upstream request's Content-Type itself, and a base_url at
	// a plain web server answers every POST 501, which must cool. CLOVA's
	// "Not yet implemented" is unknown by its words.
	want56(t, "Venice's 415", classify56(415, `{"error":"Invalid request content-type"}`, "", false), Unknown, "status:415")
	want56(t, "CLOVA's 501", classify56(501, `{"status":{"code":"50100","message":"Not yet implemented"}}`, "", false), Unknown, "phrase:not yet implemented")
	want56(t, "a bare 501", classify56(501, ``, "", false), ServerError, "status:501")
	want56(t, "CPython's http.server 501", classify56(501, `<!DOCTYPE HTML><html lang="en"><head><meta charset="utf-8"><title>Error response</title></head><body><h1>Error response</h1><p>Error code: 501</p><p>Message: Unsupported method ('POST').</p><p>Error code explanation: 501 - Server does not support this operation.</p></body></html>`, "", false), ServerError, "")
	want56(t, "a 501 that is a timeout", classify56(501, `{"error":{"message":"upstream request timed out"}}`, "", false), Timeout, "")
	want56(t, "500 stays", classify56(500, `{"status":{"code":"50000","message":"Internal server error"}}`, "", false), ServerError, "status:500")
	want56(t, "502 stays", classify56(502, ``, "", false), ServerError, "status:502")
	// The client's own words quoted back steer none of them.
	echo56(t, 409, "rate limit exceeded, too many requests", `{"error":{"message":"Cannot update: rate limit exceeded, too many requests"}}`, Unknown)
	echo56(t, 415, "The model is at capacity", `{"error":"Invalid request content-type: The model is at capacity"}`, Unknown)
	echo56(t, 501, "not yet implemented", `{"error":{"message":"not yet implemented"}}`, ServerError)
}

// (b1) hunt 58a. OpenAI's 400 code unsupported_content_type
// (openai/openai-openapi#502: "Unsupported content type: 'multipart/form-data'.
// This API method only accepts 'application/json' requests …") read unknown
// (status:400): the codes unsupported_content_type and unsupported_media_type
// name the request's HTTP media type, strong bad input beside
// unsupported_image_media_type. By the code, not the phrase: "unsupported
// content type" also names a message content part's type
// (textgenwebui, moonshot, mlxlm rows), which stays unknown.
func TestRoundFiftyEightUnsupportedContentTypeCode(t *testing.T) {
	oa := func(code string) string {
		return `{"error":{"message":"Unsupported content type: 'multipart/form-data'. This API method only accepts 'application/json' requests, but you specified the header 'Content-Type: multipart/form-data'. Please try again with a supported content type.","type":"invalid_request_error","param":null,"code":"` + code + `"}}`
	}
	want56(t, "OpenAI's code", classify56(400, oa("unsupported_content_type"), "", false), BadRequest, "code:unsupported_content_type")
	want56(t, "unsupported_media_type", classify56(400, `{"error":{"message":"Unsupported media type","type":"invalid_request_error","code":"unsupported_media_type"}}`, "", false), BadRequest, "code:unsupported_media_type")
	want56(t, "a content part's type stays", classify56(400, `{"error":{"message":"messages: unsupported content type","type":"invalid_request_error","param":"messages"}}`, "", false), Unknown, "")
	// The code in the client's words, quoted back in the message, is no code.
	echo56(t, 400, "unsupported_content_type", `{"error":{"code":null,"message":"Invalid Argument: unsupported_content_type"}}`, Unknown)
}

// (b2) hunt 58a. CLOVA's 400 40003 "Image limit exceeded" (at most 5 images
// a request; the same code as "Context length exceeded") read unknown: a
// per-request media count, overflow, as "too many images" is. Passed over at
// a 429, where a throttle may say it of a period, and only ending its
// sentence: "Image limit exceeded for today" is a period's allowance.
func TestRoundFiftyEightImageLimitExceeded(t *testing.T) {
	want56(t, "CLOVA's 40003", classify56(400, `{"status":{"code":"40003","message":"Image limit exceeded"}}`, "", false), Overflow, "phrase:image limit exceeded")
	want56(t, "its context twin stays", classify56(400, `{"status":{"code":"40003","message":"Context length exceeded"}}`, "", false), ContextLength, "")
	want56(t, "with a full stop", classify56(400, `{"error":{"message":"Image limit exceeded. At most 5 images per request."}}`, "", false), Overflow, "")
	if v := classify56(403, `{"error":{"message":"Image limit exceeded for today"}}`, "", false); v.Class == Overflow {
		t.Errorf("a day's image allowance at a 403: %s (%s), must not be overflow (review29d_test.go)", v.Class, v.Evidence)
	}
	want56(t, "a throttle's words at 429", classify56(429, `{"error":{"message":"Image limit exceeded for this minute, try again later"}}`, "", false), RateLimited, "")
	echo56(t, 400, "Image limit exceeded", `{"error":{"message":"bad request: Image limit exceeded"}}`, Unknown)
}

// (b3) hunt 58a. At 401, a tier gate: the key was read and serves the
// account's other models, this one is for a higher plan (Venice's
// PRO_ONLY_MODEL "This model is only available to Pro users"): forbidden,
// beside round 57's model allowlist. As auth, one client naming a gated
// model cooled the whole key. Worded generally: "only available to … users
// / subscribers / plan(s)", "only available on … plan(s)".
func TestRoundFiftyEightTierGate401(t *testing.T) {
	want56(t, "Venice's PRO_ONLY_MODEL", classify56(401, `{"error":"This model is only available to Pro users"}`, "", false), Forbidden, "")
	want56(t, "subscribers", classify56(401, `{"error":{"message":"This model is only available to paid subscribers."}}`, "", false), Forbidden, "")
	want56(t, "a plan", classify56(401, `{"error":{"message":"gpt-5 is only available on the Team and Enterprise plans"}}`, "", false), Forbidden, "")
	want56(t, "a bad key stays auth", classify56(401, `{"error":"Authentication failed"}`, "", false), Auth, "")
	want56(t, "Azure's subscription key stays auth", classify56(401, `{"error":{"code":"401","message":"Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a valid key for an active subscription and use a correct regional API endpoint for your resource."}}`, "", false), Auth, "")
	echo56(t, 401, "only available to Pro users", `{"error":"Invalid API key. You wrote: only available to Pro users"}`, Auth)
}

// (b4) hunt 58a. At 401, a paid standing lapsed: Venice's
// AUTHENTICATION_FAILED_INACTIVE_KEY "Authentication failed - Pro
// subscription is inactive. Please upgrade your subscription to continue
// using the API". The key is known and no rotation mends it: quota, beside
// the 401 allowance wordings (spentPhrases), as the corpus reads the same
// meaning at other statuses (Kimi's "ensure your membership is active" 402,
// Ollama's "subscription payment is past due" 403).
func TestRoundFiftyEightLapsedSubscription401(t *testing.T) {
	want56(t, "Venice's inactive subscription", classify56(401, `{"error":"Authentication failed - Pro subscription is inactive. Please upgrade your subscription to continue using the API"}`, "", false), Quota, "")
	want56(t, "expired", classify56(401, `{"error":{"message":"Your subscription has expired. Renew it to keep using the API."}}`, "", false), Quota, "")
	want56(t, "past due", classify56(401, `{"error":{"message":"Your subscription payment is past due."}}`, "", false), Quota, "")
	want56(t, "CLOVA's 40170 stays auth", classify56(401, `{"status":{"code":"40170","message":"No subscription request history found. Please request a subscription to use"}}`, "", false), Auth, "")
	want56(t, "an expired key stays auth", classify56(401, `{"error":{"message":"API key has expired"}}`, "", false), Auth, "")
	echo56(t, 401, "subscription is inactive", `{"error":"Invalid API key. You wrote: subscription is inactive"}`, Auth)
}

// (c1) hunt 58b. Requesty's 403 {"error":{"origin":"router","message":"Invalid
// authorization token"}} to a bogus key (IrvanFza/claudish probe results)
// read forbidden (status:403): the token the Authorization header carried was
// refused, auth, beside "invalid bearer token". Not a token of the client's
// own resource: Anthropic's "Invalid authorization token for MCP server
// 'notion'" stays bad_request ("mcp server" outranks it), and one naming a
// URL the client sent is no evidence (notClient).
func TestRoundFiftyEightInvalidAuthorizationToken(t *testing.T) {
	want56(t, "Requesty's 403", classify56(403, `{"error":{"origin":"router","message":"Invalid authorization token"}}`+"\n", "", false), Auth, "phrase:invalid authorization token")
	want56(t, "at 400", classify56(400, `{"error":{"message":"Invalid authorization token"}}`, "", false), Auth, "phrase:invalid authorization token")
	want56(t, "the MCP server's token stays", classify56(400, `{"type":"error","error":{"type":"invalid_request_error","message":"Invalid authorization token for MCP server 'notion'. Please check your token and try again."}}`, "", false), BadRequest, "")
	want56(t, "a bare 403 stays", classify56(403, `{"error":{"message":"Forbidden"}}`, "", false), Forbidden, "")
	echo56(t, 403, "Invalid authorization token", `{"error":{"message":"Access denied for: Invalid authorization token"}}`, Forbidden)
}

// (c2) hunt 58b. Tencent CloudBase's EXCEED_TOKEN_QUOTA_LIMIT "Token usage
// exceeded quota limit." (docs.cloudbase.net/en/error-code/EXCEED_TOKEN_QUOTA_LIMIT:
// the environment's token package is spent, buy a resource pack) read
// rate_limited at 429: a code containing token_quota is a token allowance
// spent, weak as quotaSpent is, so a short period's wording still wins.
func TestRoundFiftyEightTokenQuotaCode(t *testing.T) {
	cb := `{"code":"EXCEED_TOKEN_QUOTA_LIMIT","message":"Token usage exceeded quota limit."}`
	want56(t, "CloudBase at 429", classify56(429, cb, "", false), Quota, "")
	want56(t, "CloudBase at 403", classify56(403, cb, "", false), Quota, "")
	want56(t, "a minute's words win", classify56(429, `{"code":"EXCEED_TOKEN_QUOTA_LIMIT","message":"Tokens per minute limit exceeded, please retry in 20 seconds."}`, "", false), RateLimited, "")
	want56(t, "Cerebras' request_quota_exceeded stays", classify56(429, `{"message":"Requests per minute limit exceeded - too many requests sent.","type":"too_many_requests_error","param":"quota","code":"request_quota_exceeded"}`, "", false), RateLimited, "")
	echo56(t, 429, "EXCEED_TOKEN_QUOTA_LIMIT", `{"error":{"message":"Too many requests: EXCEED_TOKEN_QUOTA_LIMIT"}}`, RateLimited)
}

// (c3) hunt 58b. Gatewayz's 402 "Insufficient credits for this request.
// Maximum possible cost: $0.2000. Available balance: $0.0500." (a pre-flight
// reservation on max_tokens over a still-positive balance;
// Alpaca-Network/gatewayz-backend docs/CREDIT_RESERVATION_ERROR_HANDLING.md)
// read quota: this one request's maximum price over the balance is
// OpenRouter's weight_exceeds_budget, overflow; not where the balance it
// states is zero (the account is empty). Unlike OpenRouter's phrase it is
// read with the echo guard.
func TestRoundFiftyEightMaximumPossibleCost402(t *testing.T) {
	gz := `{"error":{"type":"insufficient_credits","code":"INSUFFICIENT_CREDITS","status":402,"message":"Insufficient credits for this request. Maximum possible cost: $0.2000. Available balance: $0.0500. Shortfall: $0.1500."}}`
	want56(t, "Gatewayz", classify56(402, gz, "", false), Overflow, "phrase:maximum possible cost")
	want56(t, "OpenRouter's, as before", classify56(402, `{"error":{"message":"This request's maximum cost exceeds your available credits. Add credits, or lower max_tokens or prompt size.","code":402}}`, "", false), Overflow, "")
	want56(t, "an empty balance stays quota", classify56(402, `{"error":{"type":"insufficient_credits","code":"INSUFFICIENT_CREDITS","status":402,"message":"Insufficient credits. Available balance: $0.0000."}}`, "", false), Quota, "")
	want56(t, "the same words over an empty balance stay quota", classify56(402, `{"error":{"type":"insufficient_credits","code":"INSUFFICIENT_CREDITS","status":402,"message":"Insufficient credits for this request. Maximum possible cost: $0.2000. Available balance: $0.0000. Shortfall: $0.2000."}}`, "", false), Quota, "")
	want56(t, "a balance of cents is positive", classify56(402, `{"error":{"message":"Insufficient credits for this request. Maximum possible cost: $0.2000. Available balance: $0.05."}}`, "", false), Overflow, "phrase:maximum possible cost")
	want56(t, "not at 400", classify56(400, `{"error":{"message":"Maximum possible cost: $0.20"}}`, "", false), Unknown, "")
	echo56(t, 402, "maximum possible cost", `{"error":{"message":"Insufficient credits. You wrote: maximum possible cost"}}`, Quota)
}
