package classify

import (
	"net/http"
	"strconv"
	"testing"
)

// TestVocabularyRoundTwentyFour: messages from the Anthropic dialect's
// relays and Z.ai's Anthropic endpoint, Google's ErrorInfo reasons
// (googleapis google/api/error_reason.proto) and troubleshooting answers,
// embeddings servers (TEI, llama.cpp, LocalAI, vLLM, Vertex, Jina, Baidu)
// and what sits in front of a provider (Fastly, Cloud Run, AWS API Gateway).
// Each positive failed before its rule.
func TestVocabularyRoundTwentyFour(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	embed := `{"model":"m","input":["a","b"]}`
	zai := func(typ, msg string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"` + msg + `"}}`
	}
	google := func(code int, status, msg, reason string) string {
		b := `{"error":{"code":` + strconv.Itoa(code) + `,"message":"` + msg + `","status":"` + status + `"`
		if reason != "" {
			b += `,"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"` + reason + `","domain":"googleapis.com"}]`
		}
		return b + `}}`
	}
	runHostile(t, []hostileCase{
		// Z.ai's account errors in English (docs.z.ai error codes), at 429.
		{name: "account inactive", status: 429, body: zai("1110", "Your account is currently inactive. Please check your account information"), req: chat, model: "m", want: Auth},
		{name: "account does not exist", status: 429, body: zai("1111", "Your account does not exist"), req: chat, model: "m", want: Auth},
		{name: "account locked", status: 429, body: zai("1112", "Your account has been locked, please contact customer service to unlock"), req: chat, model: "m", want: Auth},
		{name: "account locked for irregular activities", status: 429, body: zai("1121", "Account has irregular activities and has been locked"), req: chat, model: "m", want: Auth},
		{name: "account locked for a while", status: 429, body: zai("1302", "Your account has been temporarily locked due to high request frequency, please try again later"), req: chat, model: "m", notAny: []Class{Auth}},
		{name: "coding plan package expired", status: 429, body: zai("1309", "Your GLM Coding Plan package has expired and is temporarily unavailable. You can resume using it after renewing the subscription on the official website. https://z.ai/subscribe"), req: chat, model: "m", want: Quota},
		{name: "api taken offline", status: 400, body: zai("1221", "API glm-4v has been taken offline"), req: chat, model: "glm-4v", want: Unavailable},
		{name: "a feature taken offline is a gap", status: 400, body: zai("1221", "Web search has been taken offline"), req: chat, model: "m", notAny: []Class{Unavailable}},
		{name: "parameter not received", status: 400, body: zai("1213", "messages parameter not received properly"), req: chat, model: "m", want: BadRequest},
		// claude-relay-service: a weekly cap, a queue for the key's concurrency.
		// (A weekly cap on one model, "此专属账号的Opus模型已达到周使用限制", is the
		// endpoint's, not the account's: classify/review24_test.go.)
		{name: "waiting for a concurrency slot", status: 429,
			body: `{"error":"Queue timeout","message":"Request timed out waiting for concurrency slot. Limit: 2 concurrent requests, maxQueue: 10, Queue timeout: 60s, waited: 60012ms"}`, req: chat, model: "m", want: RateLimited},

		// Google: ErrorInfo reasons the table lacked, a country, no allowance.
		{name: "gcp suspended", status: 403, body: google(403, "PERMISSION_DENIED", "The caller does not have permission", "GCP_SUSPENDED"), req: chat, model: "m", want: Auth},
		{name: "credential type unsupported", status: 400, body: google(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", "CREDENTIAL_TYPE_UNSUPPORTED"), req: chat, model: "m", want: Auth},
		{name: "security policy at a 400", status: 400, body: google(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", "SECURITY_POLICY_VIOLATED"), req: chat, model: "m", want: Forbidden},
		{name: "org restriction header", status: 400, body: google(400, "INVALID_ARGUMENT", "Request contains an invalid argument.", "ORG_RESTRICTION_HEADER_INVALID"), req: chat, model: "m", want: Forbidden},
		{name: "billing country", status: 403, body: google(403, "PERMISSION_DENIED", "Access to generativelanguage.googleapis.com is restricted from your billing country and was denied for [项目ID隐藏].", ""), req: chat, model: "m", want: Forbidden},
		{name: "billing to enable stays quota", status: 403, body: google(403, "PERMISSION_DENIED", "This API method requires billing to be enabled.", ""), req: chat, model: "m", want: Quota},
		// (A Google quota answer whose limits are all 0 stays what its
		// period says: the same "limit: 0" reaches a prepaid project that was
		// served an hour before, classify/review25_test.go.)
		{name: "a free-tier daily limit spent stays quota", status: 429,
			body: `{"error":{"code":429,"message":"You exceeded your current quota. \n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 20, model: gemini-2.5-flash","status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.QuotaFailure","violations":[{"quotaMetric":"generativelanguage.googleapis.com/generate_content_free_tier_requests","quotaId":"GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}]}}`,
			req:  chat, model: "gemini-2.5-flash", want: Quota},

		// Embeddings servers.
		{name: "tei batch over its cap", status: 422, body: `{"error":"batch size 64 > maximum allowed batch size 32","error_type":"Validation"}`, req: embed, model: "m", want: Overflow},
		{name: "not an embedding model", status: 424, body: `{"error":"Backend error: Model is not an embedding model","error_type":"Backend"}`, req: embed, model: "m", want: Unknown},
		{name: "llama.cpp pooling", status: 400, body: `{"error":{"code":400,"message":"Pooling type 'none' is not OAI compatible. Please use a different pooling type","type":"invalid_request_error"}}`, req: embed, model: "m", want: Unknown},
		{name: "localai backend without embeddings", status: 500, body: `{"error":{"code":500,"message":"embeddings not supported by the backend","type":""}}`, req: embed, model: "m", want: Unknown},
		{name: "vertex instances per prediction", status: 400, body: google(400, "INVALID_ARGUMENT", "5 instance(s) is allowed per prediction. Actual: 6", ""), req: embed, model: "m", want: Overflow},
		{name: "jina input list cap", status: 400,
			body: `{"detail":"[RID: ec422fa8b74c3c20b493406ac1388555] Validation error: 'body -> jina-embeddings-v4' Each input list can contain at most 512 items.. Field errors: : Invalid value"}`, req: embed, model: "m", want: Overflow},
		{name: "truncation setting over the window", status: 400,
			body: `{"error":{"message":"truncate_prompt_tokens value is greater than max_model_len. Please, select a smaller truncation size.","type":"BadRequestError","param":null,"code":400}}`, req: embed, model: "m", want: BadRequest},
		{name: "prompt tokens too long", status: 400, body: `{"error":{"code":"tokens_too_long","message":"Prompt tokens too long","type":"invalid_request_error"}}`, req: embed, model: "m", want: ContextLength},

		// In front of the provider.
		{name: "fastly first byte timeout", status: 503, header: http.Header{"Content-Type": {"text/html"}},
			body: "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<html>\n<head>\n<title>503 first byte timeout</title>\n</head>\n<body>\n<h1>Error 503 first byte timeout</h1>\n<p>first byte timeout</p>\n</body></html>", req: chat, model: "m", want: Timeout},
		{name: "cloud run no instance at a 429", status: 429, header: http.Header{"Content-Type": {"text/plain"}},
			body: "The request was aborted because there was no available instance.\nAdditional troubleshooting documentation can be found at: https://cloud.google.com/run/docs/troubleshooting#abort-request\n", req: chat, model: "m", want: ServerError},
		{name: "api gateway missing authentication token", status: 403,
			header: http.Header{"Content-Type": {"application/json"}, "X-Amzn-Errortype": {"MissingAuthenticationTokenException"}, "X-Amz-Apigw-Id": {"EqnnQEEe4osFe-A="}},
			body:   `{"message":"Missing Authentication Token"}`, req: chat, model: "m", want: Unknown},
		{name: "the same exception from an AWS service stays auth", status: 403,
			header: http.Header{"X-Amzn-Errortype": {"MissingAuthenticationTokenException"}},
			body:   `{"message":"Missing Authentication Token"}`, req: chat, model: "m", want: Auth},
		{name: "missing authentication header stays auth", status: 401,
			body: `{"message":"Missing authentication header"}`, req: chat, model: "m", want: Auth},
	})
}
