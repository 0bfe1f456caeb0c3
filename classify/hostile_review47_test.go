package classify

import (
	"net/http"
	"testing"
	"time"
)

// Review 47 of 509af48..HEAD (round 47's classifier rules). Each test
// fails on the code under review; the report (/work/review47/REPORT.md)
// says the fix suggested.

// r47Grant is Anthropic's OAuth token endpoint's answer as the corpus holds
// it (classify/testdata/corpus/anthropic-400-oauth-invalid-grant-refresh-token-expired.json,
// https://github.com/ex-machina-co/opencode-anthropic-auth/issues/189).
const r47Grant = `{"error": "invalid_grant", "error_description": "Refresh token expired"}`

// TestR47OAuthEnvelopeBesideTheClientsCredential: a request that carries a
// credential of its own for a third party (Anthropic's mcp_servers with an
// authorization_token, TensorZero's dynamic "credentials", a connector's
// OAuth token) makes decide skip auth and forbidden wording, since the
// failing credential may be the client's (members.go carriesCredential,
// docs/security.md). An RFC 6749 token-endpoint envelope is exactly what a
// remote MCP server's OAuth flow answers (the MCP SDKs answer invalid_grant
// with a 400: https://github.com/PrefectHQ/fastmcp/issues/2461), and it is
// never an LLM API's own envelope (Anthropic wraps a bad MCP token in its
// own: "Invalid authorization token for MCP server",
// https://github.com/anthropics/anthropic-sdk-python/issues/1029; no public
// source shows an upstream passing the MCP server's envelope on bare, so
// the gap is structural). Yet oauthVerdict runs before that skip, so a client whose own
// connector token has expired, passed through bare by the upstream, cools
// the operator's account as auth and pages. Suggested fix: in decide, return
// the oauth verdict only when !carriesCredential(req) (or move the call
// below the skip computation and honour skip.has(Auth)).
func TestR47OAuthEnvelopeBesideTheClientsCredential(t *testing.T) {
	runHostile(t, []hostileCase{
		{name: "anthropic mcp_servers authorization_token", status: 400, body: r47Grant,
			req:   `{"model":"m","mcp_servers":[{"type":"url","url":"https://mcp.example.com/sse","name":"x","authorization_token":"tok"}],"messages":[{"role":"user","content":"hi"}]}`,
			model: "m", notAny: []Class{Auth}},
		{name: "responses mcp tool with authorization", status: 400, body: r47Grant,
			req:   `{"model":"m","tools":[{"type":"mcp","server_label":"x","server_url":"https://mcp.example.com","authorization":"tok"}],"input":"hi"}`,
			model: "m", notAny: []Class{Auth}},
		{name: "gateway credentials of the client", status: 400, body: r47Grant,
			req:   `{"model":"m","credentials":{"k":"v"},"messages":[{"role":"user","content":"hi"}]}`,
			model: "m", notAny: []Class{Auth}},
	})
}

// TestR47OAuthEnvelopeOnlyAtA400: docs/design.md ("An OAuth token
// endpoint's refusal is auth") and the comment on oauthVerdict say the
// envelope is auth "at a 400 or 401"; RFC 6749 §5.2 answers with a 400 (a
// 401 for invalid_client, which statusFixed already makes auth). The code
// tests def == Unknown, which is every 4xx without a class of its own (409,
// 412, 422, 424, …), and any such status a relay names ("Error code: 422 -
// {…}"). Suggested fix: require defEv to be "status:400" or
// "relayed:400"/"code:400" (pass the status), or say in design.md that any
// unclassed 4xx counts.
func TestR47OAuthEnvelopeOnlyAtA400(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "422", status: 422, body: r47Grant, req: chat, model: "m", notAny: []Class{Auth}},
		{name: "409", status: 409, body: r47Grant, req: chat, model: "m", notAny: []Class{Auth}},
		{name: "424", status: 424, body: r47Grant, req: chat, model: "m", notAny: []Class{Auth}},
	})
}

// TestR47StrongRateLimitIn5xxKeepsItsWait: the new fiveXX branch returns a
// strong rate-limit code's verdict (Apigee's policies.ratelimit.*) without
// withRetry, so the answer's Retry-After is dropped: the same body with
// "Retry-After: 30" waits 30s at a 429 but 0 at a 503, where serverHint
// would have kept the 30s had it stayed server_error. docs/design.md says
// the endpoint "cools for the retry hint or rate_limit_cooldown". The body
// is the Apigee Quota policy's fault as the corpus holds it
// (classify/testdata/corpus/apigee-500-quota-violation-rate-limit-identifier-default-edge.json,
// https://discuss.google.dev/t/http-429-as-default-status-code-for-quota-policy-violation/17548). Suggested fix: return
// withRetry(v, h, f, req) for the strong RateLimited case in fiveXX (it
// already refuses a hint the client's request holds), or at least
// explicitRetryAfter at a 429/503/529 as serverHint does. (Without
// withRetry a Retry-After of an hour or more is not turned into quota
// either, as docs/behaviour.md "Where Detour chose" says it is.)
func TestR47StrongRateLimitIn5xxKeepsItsWait(t *testing.T) {
	body := `{"fault":{"faultstring":"Rate limit quota violation. Quota limit exceeded. Identifier : _default","detail":{"errorcode":"policies.ratelimit.QuotaViolation"}}}`
	req := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	for _, st := range []int{429, 503} {
		v := Classify(Response{Status: st, Header: http.Header{"Retry-After": {"30"}}, Body: []byte(body), Request: []byte(req), Model: "m"})
		if v.Class != RateLimited || v.RetryAfter != 30*time.Second {
			t.Errorf("status %d: got %s (%s) RetryAfter %v, want rate_limited with the header's 30s", st, v.Class, v.Evidence, v.RetryAfter)
		}
		// docs/behaviour.md, "Where Detour chose": "A Retry-After of an
		// hour or more is quota, not rate_limited" (withRetry).
		v = Classify(Response{Status: st, Header: http.Header{"Retry-After": {"7200"}}, Body: []byte(body), Request: []byte(req), Model: "m"})
		if v.Class != Quota {
			t.Errorf("status %d, Retry-After 7200: got %s (%s), want quota as withRetry makes it", st, v.Class, v.Evidence)
		}
	}
}
