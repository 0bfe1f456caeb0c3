package classify

import "testing"

// The sixth held-out round (testdata/corpus/README.md): the families of
// wording the big providers used that no rule read. Each table names what a
// rule covers and, after it, what it must not catch.

// TestBadInputWordings6: an unexpected value of something the client sent
// (a header, a parameter), pydantic's "should be a valid …", a reserved word
// the client used, and a request item that "is missing a" named field are
// the client's input — where the status says nothing else.
func TestBadInputWordings6(t *testing.T) {
	run(t, []tc{
		{"unexpected value of a header", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"Unexpected value(s) ` + "`foo-2026-01-01`" + ` for the ` + "`anthropic-beta`" + ` header."}}`, false, "bad_request", "phrase:unexpected value"},
		{"unexpected value of a field", 400, nil, `{"error":{"message":"Unexpected value 'fast' for service_tier"}}`, false, "bad_request", "phrase:unexpected value"},
		{"reserved word", 400, nil, `{"error":{"message":"'__system__' is a reserved tool name"}}`, false, "bad_request", "phrase:is a reserved"},
		{"may not be used", 400, nil, `{"error":{"message":"The name 'assistant' may not be used for a tool"}}`, false, "bad_request", "phrase:may not be"},
		{"is missing a named field", 400, nil, `{"error":{"code":400,"message":"Tool call is missing a call_id.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:is missing a"},
		// What a request lacks outranks an aside on the provider's
		// performance: the answer is about the request.
		{"is missing a beside degraded", 400, nil, `{"error":{"code":400,"message":"Part is missing a signature; this may lead to degraded results.","status":"INVALID_ARGUMENT"}}`, false, "bad_request", "phrase:is missing a"},
		// Must not catch: another status says more, and a degraded
		// function with nothing missing stays the provider's.
		{"unexpected value in a 429 stays a rate", 429, nil, `{"error":{"message":"Too many requests: unexpected value in header"}}`, false, "rate_limited", ""},
		{"is missing a in a 503 stays a server error", 503, nil, `{"error":{"message":"Backend is missing a worker, retry later"}}`, false, "server_error", ""},
		{"degraded alone stays a server error", 400, nil, `{"status":400,"title":"Bad Request","detail":"Function 'x': DEGRADED function cannot be invoked"}`, false, "server_error", "phrase:degraded"},
	})
}

// TestRelayedFieldPath: a router's own words first ("Provider returned
// error") and the upstream's field error in metadata.raw: the request-rooted
// path in the relayed body proves bad input, as it does in the first text.
func TestRelayedFieldPath(t *testing.T) {
	run(t, []tc{
		{"openrouter raw with a rooted path", 400, nil, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"message\":\"messages.3.content.1.image_url: Input should be a valid dictionary\"}","provider_name":"X"}}}`, false, "bad_request", "message:field-path"},
		// Must not catch: a raw body with no rooted path names nothing, and
		// a capability gap relayed with its path stays a gap.
		{"raw with no path stays unknown", 400, nil, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"message\":\"Bad request\"}","provider_name":"X"}}}`, false, "unknown", ""},
		{"relayed gap with a path stays a gap", 400, nil, `{"error":{"message":"Provider returned error","code":400,"metadata":{"raw":"{\"message\":\"messages.0.content.1.image: This model does not support image input\"}","provider_name":"X"}}}`, false, "unknown", "phrase:does not support"},
		{"a 429 with a rooted path stays a rate", 429, nil, `{"error":{"message":"Provider returned error","code":429,"metadata":{"raw":"{\"message\":\"messages.0: too many requests\"}","provider_name":"X"}}}`, false, "rate_limited", ""},
	})
}

// TestSafetyReasons: content withheld "for safety reasons" is a refusal of
// this request, whatever code carries it; account wording still outranks it.
func TestSafetyReasons(t *testing.T) {
	run(t, []tc{
		{"limited access for safety reasons", 400, nil, `{"error":{"message":"Invalid prompt: we've limited access to this content for safety reasons.","type":"invalid_request_error","param":null,"code":"invalid_prompt"}}`, false, "refusal", "phrase:safety reasons"},
		{"blocked for safety reasons in a 200", 200, nil, `{"error":{"message":"Response blocked for safety reasons"}}`, false, "refusal", "phrase:safety reasons"},
		// Must not catch: a key revoked is the key's.
		{"a revoked key stays auth", 400, nil, `{"error":{"message":"Your API key was revoked for safety reasons"}}`, false, "auth", "phrase:api key was revoked"},
	})
}

// TestUsageLimitReached: a plan's usage limit reached is the account's
// allowance spent (quota), by its code or its words, also inside a stream's
// error event; a throttle that says "usage limits … try again" stays a rate.
func TestUsageLimitReached(t *testing.T) {
	run(t, []tc{
		{"code usage_limit_reached as 429", 429, nil, `{"error":{"type":"usage_limit_reached","message":"Limit hit","plan_type":"pro","resets_in_seconds":3600}}`, false, "quota", "type:usage_limit_reached"},
		{"stream error event", 200, nil, "event: error\ndata: {\"type\":\"error\",\"status_code\":429,\"error\":{\"type\":\"usage_limit_reached\",\"message\":\"Limit hit\"}}\n\n", true, "quota", "type:usage_limit_reached"},
		{"usage limit has been reached", 429, nil, `{"error":{"message":"The weekly usage limit has been reached for this plan"}}`, false, "quota", "phrase:usage limit…reached"},
		// Must not catch.
		{"exceeded usage limits try again stays a rate", 429, nil, `{"error": "Too Many Requests", "message": "You have exceeded your usage limits. Please try again later."}`, false, "rate_limited", ""},
		{"rate limit reached stays a rate", 429, nil, `{"error":{"message":"Rate limit reached for requests"}}`, false, "rate_limited", "phrase:rate limit"},
		{"per-minute usage limit reached stays a rate", 429, nil, `{"error":{"message":"Usage limit reached: 60 requests per minute"}}`, false, "rate_limited", "phrase:per minute"},
	})
}

// TestMissingAuthorizationHeader: no credential reached the provider (an
// AWS answer writes its "Message" with a capital): the credential, auth,
// even as 403.
func TestMissingAuthorizationHeader(t *testing.T) {
	run(t, []tc{
		{"aws capital Message", 403, nil, `{"Message":"Authorization header is missing"}`, false, "auth", "phrase:authorization header…missing"},
		{"missing authorization header", 403, nil, `{"error":{"message":"Missing Authorization header"}}`, false, "auth", "phrase:missing…authorization header"},
		// The capital Message is read like message for every rule.
		{"aws capital Message, too many requests", 400, nil, `{"Message":"Too many requests, please wait"}`, false, "rate_limited", "phrase:too many requests"},
		// Must not catch: the words as a named field's content.
		{"beside a named field it is that field's", 400, nil, `{"error":{"message":"authorization header is missing a value for x-goog-user-project","type":"invalid_request_error","param":"x-goog-user-project"}}`, false, "bad_request", ""},
	})
}

// TestOperationNotAllowed: an operation the account may not perform is
// access not granted, even in a validation error's envelope.
func TestOperationNotAllowed(t *testing.T) {
	run(t, []tc{
		{"aws validation envelope", 400, map[string]string{"x-amzn-errortype": "ValidationException"}, `{"message":"Operation not allowed"}`, false, "forbidden", "phrase:operation not allowed"},
		{"operation is not allowed", 400, nil, `{"error":{"message":"This operation is not allowed for your account"}}`, false, "forbidden", "phrase:operation is not allowed"},
		// Must not catch: a rate beside it.
		{"rate limit beside it stays a rate", 429, nil, `{"message":"Rate limit exceeded: operation not allowed now"}`, false, "rate_limited", "phrase:rate limit"},
	})
}

// The second batch of the round, gathered after the rules above (held out
// from them): a feature not granted to the account's subscription, two
// settings that "may not be" combined, an encrypted item the endpoint cannot
// verify.

// TestSubscriptionNotGranted: a feature or service not (yet) available for
// this subscription or account is access not granted, whatever the status.
func TestSubscriptionNotGranted(t *testing.T) {
	run(t, []tc{
		{"not yet available for this subscription", 400, nil, `{"type":"error","error":{"type":"invalid_request_error","message":"The batch beta is not yet available for this subscription."}}`, false, "forbidden", "phrase:not yet available for…subscription"},
		{"not available for your subscription", 400, nil, `{"error":{"message":"Priority processing is not available for your current subscription"}}`, false, "forbidden", "phrase:not available for…subscription"},
		{"not available for this account", 400, nil, `{"error":{"message":"Fine-tuning is not available for this account"}}`, false, "forbidden", "phrase:not available for…account"},
		// Must not catch: an advertisement beside a rate, a gone model.
		{"available for paid subscriptions stays a rate", 429, nil, `{"error":{"message":"Too many requests. Higher limits are available for paid subscriptions."}}`, false, "rate_limited", ""},
		{"a gone model stays gone", 404, nil, `{"error":{"message":"The model foo does not exist or is not available for this subscription"}}`, false, "unavailable", ""},
	})
}

// TestMayNotBe: a setting that "may not be" given as sent (enabled with
// another, empty, used) is the request's, where the status says nothing
// else.
func TestMayNotBe(t *testing.T) {
	run(t, []tc{
		{"aws relay of two settings", 400, map[string]string{"x-amzn-errortype": "ValidationException"}, `{"message":"The model returned the following errors: Streaming may not be enabled when n is greater than 1."}`, false, "bad_request", "phrase:may not be"},
		{"may not be empty", 400, nil, `{"error":{"message":"The system prompt may not be empty"}}`, false, "bad_request", "phrase:may not be"},
		// Must not catch: a throttle or an outage that says it too.
		{"a throttle stays a rate", 429, nil, `{"error":{"message":"Too many requests; your request may not be retried now"}}`, false, "rate_limited", ""},
		{"an outage stays a server error", 503, nil, `{"error":{"message":"Results may not be available, try again"}}`, false, "server_error", ""},
	})
}

// TestInvalidEncryptedContent: an encrypted item the client sent back that
// this endpoint cannot verify is the request's (its code names it); a 5xx
// carrying the code stays the provider's.
func TestInvalidEncryptedContent(t *testing.T) {
	run(t, []tc{
		// Round 56 (hunt 56b): the words alone now place it too (Azure
		// sends them with code null), and they are read before the code:
		// the same class, the phrase's evidence. The code alone still
		// decides where the words are not there (next row).
		{"code in a 400", 400, nil, `{"error":{"message":"The encrypted content for item rs_1 could not be verified.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`, false, "bad_request", "phrase:encrypted content…could not be"},
		{"the code alone in a 400", 400, nil, `{"error":{"message":"Verification failed for item rs_1.","type":"invalid_request_error","param":null,"code":"invalid_encrypted_content"}}`, false, "bad_request", "code:invalid_encrypted_content"},
		{"code in a 500 stays a server error", 500, nil, `{"error":{"message":"internal","type":"server_error","param":null,"code":"invalid_encrypted_content"}}`, false, "server_error", ""},
	})
}
