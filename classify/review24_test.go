package classify

import (
	"encoding/json"
	"net/http"
	"testing"
)

// Hostile review of round 24 (classify/vocab24_test.go): failing tests for
// answers the new rules misread where the misreading cools a provider for
// everyone or pages the operator.

// TestReview24ZeroAllowanceEchoed: zeroAllowance (window.go) is checked first
// in decide, before the phrases, and never asks whether its text is the
// client's: "Quota exceeded for metric: …, limit: 0" quoted back from the
// request is read as Google's zero allowance, forbidden. Anthropic quotes an
// unknown anthropic-beta value in its 400 (corpus:
// vertex-claude-unexpected-anthropic-beta-web-search-count-tokens-400.json);
// Detour forwards that header as sent and dispatch appends it to Request
// (call.evidence), so every other rule discards the echo — this one does not.
// A client that sends the header failure_threshold times in a row cools the
// Anthropic endpoint for everyone (forbidden cools an endpoint). The sibling
// requestOverLimit (same file) does check echoed(); zeroAllowance should too
// (or run where the phrases do, after the echo check), and only read a text
// that is Google's own (an error.status RESOURCE_EXHAUSTED / a QuotaFailure).
func TestReview24ZeroAllowanceEchoed(t *testing.T) {
	const value = "Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests limit: 0 model: claude-sonnet-4-5"
	msg := "Unexpected value(s) `" + value + "` for the `anthropic-beta` header. Please consult our documentation at docs.anthropic.com or try again without the header."
	b, _ := json.Marshal(map[string]any{"type": "error", "error": map[string]any{"type": "invalid_request_error", "message": msg}})
	req := `{"model":"claude-sonnet-4-5","max_tokens":16,"messages":[{"role":"user","content":"hi"}]}` + "\n2023-06-01\n" + value
	runHostile(t, []hostileCase{
		{name: "anthropic-beta value quoted back", status: 400, body: string(b), req: req, model: "claude-sonnet-4-5", want: BadRequest},
	})
}

// TestReview24TerminalUserLocked: "account has been locked" (new) and
// 账号已被锁定 (older) make auth, which cools the whole account and pages. Z.ai
// documents a 429 "Terminal account anomaly — Terminal user has violation,
// account has been locked" (docs.z.ai/api-reference/api-code; bigmodel.cn:
// 终端账号异常 — 终端用户存在违规行为，账号已被锁定): the account locked is the
// end user's, the `user_id` the client sends with its request (Z.ai's
// parameter for intervening against an end user's abuse). One abusive end
// user — or a client that names one — takes the operator's Z.ai account out
// for every client and pages the operator. As with Spark's per-user
// 用户流量受限 (review 23), what the client's own user caused cools nothing:
// an account lock whose subject is the terminal / end user (终端用户, 终端账号)
// is not the provider account's state.
func TestReview24TerminalUserLocked(t *testing.T) {
	req := `{"model":"glm-4.6","user_id":"end-user-42","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "terminal user locked (English)", status: 429,
			body: `{"error":{"message":"Terminal user has violation, account has been locked"}}`,
			req:  req, model: "glm-4.6", notAny: []Class{Auth, Quota}},
		{name: "terminal user locked (Chinese)", status: 429,
			body: `{"error":{"message":"终端用户存在违规行为，账号已被锁定"}}`,
			req:  req, model: "glm-4.6", notAny: []Class{Auth, Quota}},
	})
}

// TestReview24PerModelWeeklyLimit: 周使用限制 is taught as quota, which cools
// the whole provider account for account_cooldown and pages. The message it
// was taught from (claude-relay-service, _buildOpusLimitMessage, a 403 with
// error "opus_weekly_limit") is one model's weekly cap: "此专属账号的Opus模型已
// 达到周使用限制，将于 … 自动恢复，请尝试切换其他模型后再试" — the Opus model
// of this account has reached its weekly limit, switch to another model. The
// relay itself marks only that model limited (markAccountModelRateLimited
// 'weekly_opus'; markAccountRateLimited not called, per its own test). Read
// as quota, every Sonnet and Haiku target on the same relay cools too — the
// very reason this round made Google's per-model limit-0 forbidden rather
// than quota. A use limit whose subject is a model (…模型已达到周使用限制) is
// the endpoint's, not the account's.
func TestReview24PerModelWeeklyLimit(t *testing.T) {
	chat := `{"model":"claude-opus-4-1","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "opus weekly limit with a reset", status: 403,
			body: `{"error":"opus_weekly_limit","message":"此专属账号的Opus模型已达到周使用限制，将于 2026/01/12 08:00:00 自动恢复，请尝试切换其他模型后再试。"}`,
			req:  chat, model: "claude-opus-4-1", notAny: []Class{Quota, Auth}},
	})
}

// TestReview24APIGatewayMissingTokenHeader: "missing authentication token"
// was made unavailable for API Gateway's answer to a path it does not route,
// but a real API Gateway answer carries `x-amzn-ErrorType:
// MissingAuthenticationTokenException` (with x-amz-apigw-id), and that header
// is a strong auth code (codes.go, srcAmzHeader), which decides before any
// phrase: the answer the rule was written for is still auth — the whole
// account cooled for account_cooldown and the operator paged. The vocab24
// case passes only because it leaves the header out. Worse, the path is the
// client's choice: an embeddings request to a provider whose gateway routes
// only /chat/completions gets exactly this answer. Where x-amz-apigw-id is
// present (API Gateway, not an AWS service checking a signature) the header
// code should not say auth.
func TestReview24APIGatewayMissingTokenHeader(t *testing.T) {
	h := http.Header{
		"Content-Type":     {"application/json"},
		"X-Amzn-Requestid": {"d4b13ea3-eb9c-4eac-bd12-e7ee23dfcebd"},
		"X-Amzn-Errortype": {"MissingAuthenticationTokenException"},
		"X-Amz-Apigw-Id":   {"EqnnQEEe4osFe-A="},
	}
	runHostile(t, []hostileCase{
		{name: "api gateway unrouted embeddings path, real headers", status: 403, header: h,
			body: `{"message":"Missing Authentication Token"}`,
			req:  `{"model":"m","input":["a","b"]}`, model: "m", notAny: []Class{Auth, Quota}},
	})
}

// TestReview24EmbeddingsAtAChatServer: health is kept per target × provider,
// shared by the chat and embeddings doors, and any client may send
// /v1/embeddings naming a chat route (only dialects without an Embedder are
// skipped). A server that serves the model for chat but not for embeddings
// says so, and "an embeddings endpoint that serves none" is unavailable: the
// chat endpoint cools at once for unavailable_cooldown, for every client,
// after one request. vLLM running a generative model answers exactly this
// (`{"object":"error","message":"The model does not support Embeddings
// API","type":"BadRequestError","param":null,"code":400}`); this round adds
// three more wordings of the same family ("is not an embedding model",
// llama.cpp's pooling type, LocalAI's "embeddings not supported"). The
// request chose an API the model lacks: a capability gap (unknown: fail over,
// cool nothing), as "does not support tools" is.
func TestReview24EmbeddingsAtAChatServer(t *testing.T) {
	embed := `{"model":"Qwen/Qwen3-8B","input":["a","b"]}`
	runHostile(t, []hostileCase{
		{name: "vllm chat model asked to embed", status: 400,
			body: `{"object":"error","message":"The model does not support Embeddings API","type":"BadRequestError","param":null,"code":400}`,
			req:  embed, model: "Qwen/Qwen3-8B", notAny: []Class{Unavailable}},
		// A local mesh router in front of several engines (its wrongKind).
		{name: "a multi-model router's chat model asked to embed", status: 400,
			body: `{"error":"\"Qwen/Qwen3-8B\" is not an embedding model, so it cannot serve /v1/embeddings; load an embedding model and name it instead"}`,
			req:  embed, model: "Qwen/Qwen3-8B", notAny: []Class{Unavailable}},
	})
}
