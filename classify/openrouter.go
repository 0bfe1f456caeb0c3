package classify

// OpenRouter's error types (docs/behaviour.md, "Classes"). OpenRouter tags
// a failure with a stable error_type — error.metadata.error_type on its
// Chat Completions answers and their mid-stream chunks (choices[].error
// too), error.error_type on its Messages skin and its availability
// errors, response.error_type (or a top-level error_type) on its
// Responses skin — and a model's availability with error.availability.code
// (its API reference, "Errors and debugging"). They say what its numeric
// code or status cannot: a context window at a 400, a revoked key that its
// Responses skin sends as code server_error (hunt 62d: read server_error
// even beside "Invalid credentials"), a filter's block at a 400.
//
// Left to the words and to the routing-preferences rule (members.go): the
// availability codes a client's own routing preferences can cause
// (no_endpoints, privacy_restricted, constraint_filtered: "removed by your
// provider preferences", "your data-policy preferences", "a routing
// constraint — max price, …"), so that no client cools the endpoint for
// everyone (review 61c); and the types whose meaning OpenRouter's page
// leaves between classes (max_tokens_exceeded, token_limit_exceeded,
// invalid_prompt, invalid_request, precondition_failed, unprocessable).

func init() {
	codeTables[srcRouterAvail] = map[string]codeRule{
		"model_not_found": strongCode(Unavailable), "model_deprecated": strongCode(Unavailable),
		"model_unavailable_upstream": strongCode(Unavailable), "free_variant_ended": strongCode(Unavailable),
		"capacity_exhausted": strongCode(ServerError), "temporarily_unavailable": strongCode(ServerError),
		"region_restricted": strongCode(Forbidden),
		"wrong_endpoint":    strongCode(Unknown), // a model called on an API it does not serve: another target may
	}
	codeTables[srcRouterType] = map[string]codeRule{
		"context_length_exceeded": strongCode(ContextLength),
		"authentication":          strongCode(Auth), "payment_required": strongCode(Quota),
		"permission_denied":   weakCode(Forbidden), // a guardrail's block says refusal in its words
		"rate_limit_exceeded": weakCode(RateLimited),
		"provider_overloaded": strongCode(ServerError), "provider_unavailable": strongCode(ServerError),
		"server": strongCode(ServerError), "unmapped": weakCode(ServerError), "timeout": strongCode(Timeout),
		"not_found":         weakCode(Unavailable),
		"payload_too_large": strongCode(Overflow), "string_too_long": strongCode(Overflow),
		"image_too_large":          strongCode(Overflow),
		"content_policy_violation": strongCode(Refusal), "refusal": strongCode(Refusal),
		"invalid_image": strongCode(BadRequest), "image_too_small": strongCode(BadRequest),
		// An image the upstream could not fetch or read in a format it
		// lacks: no proof against the client (a URL may fail for a
		// moment) nor against the provider. Moves on, cools nothing.
		"unsupported_image_format": strongCode(Unknown), "image_not_found": strongCode(Unknown),
		"image_download_failed": strongCode(Unknown),
	}
	evidenceOf(srcRouterAvail)
	evidenceOf(srcRouterType)
}
