package classify

import (
	"net/http"
	"testing"
)

// Hostile review 29b of e3583ee and 7c49e4d..52081f4: each test fails at
// 52081f4. Bodies marked REAL are quoted from public sources (see
// /work/notes/found-review29b.md); INVENTED ones are marked so.

// TestReview29bOveragesUnderAnHour: "enable overages" is a strong quota
// phrase, so it outranks the reset the same sentence names. Antigravity's
// (Code Assist's) "Individual quota reached" is a five-hour window: under
// an hour to its reset it is a wait, which 628a0cc read as rate_limited
// with that wait; now it pages and cools the account.
func TestReview29bOveragesUnderAnHour(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// REAL: router-for-me/CLIProxyAPIHome test fixture of the upstream 429, without its details.
		{name: "code assist 45m7s", status: 429,
			body: `{"error":{"code":429,"message":"Individual quota reached. Contact your administrator to enable overages. Resets in 45m7s.","status":"RESOURCE_EXHAUSTED"}}`,
			req:  chat, model: "gemini-3-pro-preview", want: RateLimited},
		// REAL line (agy banner "Resets in 58m42s."), relayed as a plain-text 429.
		{name: "agy line relayed 58m42s", status: 429,
			body: `RESOURCE_EXHAUSTED (code 429): Individual quota reached. Contact your administrator to enable overages. Resets in 58m42s.`,
			req:  chat, model: "m", want: RateLimited},
		// REAL message (OmniRoute's relay); the Retry-After header is INVENTED.
		{name: "omniroute relay with a 2m Retry-After", status: 429, header: http.Header{"Retry-After": {"120"}},
			body: `{"error":{"message":"Antigravity upstream error (429): You have exhausted your capacity on this model. Individual quota reached. Contact your administrator to enable overages."}}`,
			req:  chat, model: "m", want: RateLimited},
		// INVENTED: overages as an aside beside a per-minute throttle.
		{name: "per-minute throttle, overages aside", status: 429, header: http.Header{"Retry-After": {"30"}},
			body: `{"error":{"code":429,"message":"Rate limit exceeded: 60 requests per minute. Ask your admin to enable overages for higher limits.","status":"RESOURCE_EXHAUSTED"}}`,
			req:  chat, model: "m", want: RateLimited},
	})
}

// TestReview29bClientSideAuthRequirement: "required when authenticating
// with" is auth (the account cools at once, the operator is paged) wherever
// the text names no URL the client sent. What a client's own connector, its
// OAuth flow or its system prompt lacks is the client's: 628a0cc read these
// as bad_request ("is required"). All bodies INVENTED.
func TestReview29bClientSideAuthRequirement(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "a connector the client named, no URL", status: 400,
			body: `{"error":{"message":"An OAuth access token is required when authenticating with connector_gmail.","type":"invalid_request_error"}}`,
			req:  `{"model":"m","input":"hi","tools":[{"type":"mcp","server_label":"gmail","connector_id":"connector_gmail"}]}`, model: "m",
			notAny: []Class{Auth, Quota}},
		{name: "the client's OAuth client-credentials flow", status: 400,
			body: `{"error":{"message":"client_secret is required when authenticating with client credentials","type":"invalid_request_error"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", notAny: []Class{Auth}},
		{name: "a system prompt the request lacks", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"The Claude Code system prompt is required when authenticating with an OAuth token."}}`,
			req:  `{"model":"m","max_tokens":10,"system":"You are a helpful assistant.","messages":[{"role":"user","content":"hi"}]}`, model: "claude-sonnet-4-5",
			notAny: []Class{Auth}},
	})
}

// TestReview29bDeprecatedForThisModelNotTheModel: "is deprecated for this
// model" (unknown) ranks ahead of every gone wording and ends nowhere, so
// the endpoint's own configuration (its api-version) or the model itself
// ("… for this model family and is no longer available") is read as a
// capability gap: nothing cools and every request spends an attempt
// there. 628a0cc read both as unavailable. Bodies INVENTED.
func TestReview29bDeprecatedForThisModelNotTheModel(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "the endpoint's api-version", status: 400,
			body: `{"error":{"message":"The api-version '2023-03-15-preview' is deprecated for this model. Use api-version 2024-10-21 or later.","type":"invalid_request_error"}}`,
			req:  chat, model: "gpt-4o", want: Unavailable},
		{name: "the model snapshot itself", status: 404,
			body: `{"error":{"message":"The model gpt-4-0613 is deprecated for this model family and is no longer available.","type":"invalid_request_error"}}`,
			req:  chat, model: "gpt-4-0613", want: Unavailable},
	})
}

// TestReview29bGuardrailWordsTooWide: the new guardrail phrases are read at
// any status and outrank the throttle and access wording; "blocked by …
// violations" is not bound to one clause. A refusal stops the walk and
// tells the client not to retry. Bodies INVENTED.
func TestReview29bGuardrailWordsTooWide(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "a WAF's block at a 403", status: 403,
			body: `{"error":{"message":"Request blocked by the web application firewall. Violations: 942100 SQL injection attack detected via libinjection"}}`,
			req:  chat, model: "m", notAny: []Class{Refusal}},
		{name: "blocked by CORS, violations in the next sentence", status: 400,
			body: `{"error":{"message":"Request blocked by CORS policy. 2 violations: origin not allowed","type":"invalid_request_error"}}`,
			req:  chat, model: "m", notAny: []Class{Refusal}},
		{name: "the guardrail service's own rate limit", status: 429, header: http.Header{"Retry-After": {"10"}},
			body: `{"error":{"message":"Rate limit violated for guardrail service lakera; retry in 10s","type":"invalid_request_error"}}`,
			req:  chat, model: "m", want: RateLimited},
		// (Not kept: "Guardrail timeout violated: guardrail lakera took
		// longer than 5s", INVENTED, still reads as a refusal — "violated"
		// and "guardrail" in one clause; no guardrail vendor was found
		// wording its timeout so.)
		{name: "no PII entity detected", status: 400,
			body: `{"error":{"message":"Presidio: no PII entity detected in request, but mask mode requires at least one entity config"}}`,
			req:  chat, model: "m", notAny: []Class{Refusal}},
	})
}

// TestReview29bInvalidModelForPrefix: "invalid model for key|user|org" are
// prefixes, not words: "keyword", "user-defined", "organization" make the
// access-list verdict (forbidden: the walk stops) out of other things.
// Bodies INVENTED.
func TestReview29bInvalidModelForPrefix(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "keyword extraction", status: 400,
			body: `{"error":{"message":"Invalid model for keyword extraction: use an embedding model","type":"invalid_request_error"}}`,
			req:  chat, model: "m", notAny: []Class{Forbidden}},
		{name: "user-defined tool", status: 400,
			body: `{"error":{"message":"Invalid model for user-defined tool 'summarize'","type":"invalid_request_error"}}`,
			req:  chat, model: "m", notAny: []Class{Forbidden}},
	})
}
