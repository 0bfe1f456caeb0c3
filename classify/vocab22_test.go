package classify

import (
	"testing"
	"time"
)

// TestVocabularyRoundTwentyTwo: messages vendors document or their servers
// send (error-code tables, server source, answers quoted in public repos;
// each named below), placed in the vendor's envelope, which the corpus has
// no full body of (classify/testdata/corpus/README.md, "Twenty-second
// round"). Each positive failed before its rule; the near-misses must not
// move.
func TestVocabularyRoundTwentyTwo(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// A param that names nothing the request carries is a category, not
		// a field (Cerebras sends "param":"quota" with its quota answers).
		{name: "cerebras daily cap with param quota", status: 429,
			body: `{"message":"Tokens per day limit exceeded - too many tokens processed.","type":"too_many_tokens_error","param":"quota","code":"token_quota_exceeded"}`,
			req:  chat, model: "m", want: Quota},
		{name: "a param the request carries stays a field", status: 400,
			body: `{"error":{"message":"max_tokens is too large: 9999999. This model supports at most 4096 completion tokens.","type":"invalid_request_error","param":"max_tokens","code":"invalid_value"}}`,
			req:  `{"model":"m","max_tokens":9999999,"messages":[]}`, model: "m", want: BadRequest},
		{name: "a nested member the request carries stays a field", status: 400,
			body: `{"error":{"message":"Invalid image.","type":"invalid_request_error","param":"image_url","code":"invalid_value"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:x"}}]}]}`, model: "m", want: BadRequest},
		{name: "a path stays a field", status: 400,
			body: `{"error":{"message":"Invalid value: 'robot'.","type":"invalid_request_error","param":"messages[0].role","code":"invalid_value"}}`,
			req:  chat, model: "m", want: BadRequest},

		// A window of a day, and a wait of an hour or more, said in words
		// (GitHub Models, quoted in public repos).
		{name: "github models per day", status: 429,
			body: `{"error":{"code":"RateLimitReached","message":"Rate limit of 8 per 86400s exceeded for UserByModelByDay. Please wait 85841 seconds before retrying.","details":"Rate limit of 8 per 86400s exceeded for UserByModelByDay. Please wait 85841 seconds before retrying."}}`,
			req:  chat, model: "m", want: Quota},
		{name: "github models per minute", status: 429,
			body: `{"error":{"code":"RateLimitReached","message":"Rate limit of 15 per 60s exceeded for UserByModelByMinute. Please wait 25 seconds before retrying.","details":"Rate limit of 15 per 60s exceeded for UserByModelByMinute. Please wait 25 seconds before retrying."}}`,
			req:  chat, model: "m", want: RateLimited},
		// Cloudflare Workers AI 4006/3036.
		{name: "daily free allocation used up", status: 429,
			body: `{"errors":[{"code":4006,"message":"you have used up your daily free allocation of 10,000 neurons, please upgrade to Cloudflare's Workers Paid plan if you would like to continue usage."}],"success":false}`,
			req:  chat, model: "m", want: Quota},
		{name: "memory allocation is the server's", status: 500,
			body: `{"error":{"message":"daily job failed: memory allocation of 4096 bytes failed"}}`,
			req:  chat, model: "m", want: ServerError},
		// Zhipu 1304 (docs.bigmodel.cn/cn/api/api-code), iFlytek Spark 11201.
		{name: "today's call quota", status: 429,
			body: `{"error":{"code":"1304","message":"该 API 已达今日调用次数限额,如有更多需求,请联系客服购买"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "daily flow control", status: 200,
			body: `{"header":{"code":11201,"message":"授权错误:日流控超限。超过当日最大访问量的限制","sid":"cht000b0c24@dx1916602ea10b808550","status":2}}`,
			req:  chat, model: "m", want: Quota},
		{name: "per-second flow control", status: 200,
			body: `{"header":{"code":11202,"message":"授权错误:秒级流控超限。秒级并发超过授权路数限制","sid":"cht000b0c24@dx1916602ea10b808550","status":2}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "concurrency flow control", status: 200,
			body: `{"header":{"code":11203,"message":"授权错误:并发流控超限。并发路数超过授权路数限制","sid":"cht000b0c24@dx1916602ea10b808550","status":2}}`,
			req:  chat, model: "m", want: RateLimited},
		// Baidu Qianfan 19 and 18 (ai.baidu.com/ai-doc/WENXINWORKSHOP/tlmyncueh).
		// A "total request limit" names no period: Baidu's 19 is over all
		// time, an NVIDIA worker's "total request limit reached (16/16)" is
		// its queue (classify/review22_test.go). Its words do not settle it.
		{name: "total request limit", status: 200,
			body: `{"error_code":19,"error_msg":"Open api total request limit reached"}`, req: chat, model: "m", want: Unknown},
		// Hunyuan's FailedOperation.EngineServerLimitExceeded (tencentcloud-sdk-go
		// hunyuan/v20230901/errors.go): over a limit, come back later.
		{name: "over the limit, retry later", status: 400,
			body: `{"error":{"message":"引擎层请求超过限额；请稍后重试。","code":"FailedOperation.EngineServerLimitExceeded"}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "over the limit, no retry", status: 400,
			body: `{"error":{"message":"图片大小超过限额"}}`, req: chat, model: "m", notAny: []Class{RateLimited}},
		{name: "qps request limit", status: 200,
			body: `{"error_code":18,"error_msg":"Open api qps request limit reached"}`, req: chat, model: "m", want: RateLimited},
		{name: "the cluster's request limit names no period", status: 200,
			body: `{"error_code":4,"error_msg":"Open api request limit reached"}`, req: chat, model: "m", notAny: []Class{Quota}},

		// Accounts locked, missing or terminated (Zhipu 1110-1121 at 429;
		// OpenAI's access_terminated at 429).
		{name: "account inactive", status: 429,
			body: `{"error":{"code":"1110","message":"您的账户当前处于非活动状态。请检查账户信息"}}`, req: chat, model: "m", want: Auth},
		{name: "account does not exist", status: 429,
			body: `{"error":{"code":"1111","message":"您的账户不存在"}}`, req: chat, model: "m", want: Auth},
		{name: "account locked", status: 429,
			body: `{"error":{"code":"1112","message":"您的账户已被锁定,请联系客服解锁"}}`, req: chat, model: "m", want: Auth},
		{name: "account locked for violations", status: 429,
			body: `{"error":{"code":"1121","message":"账户存违规行为,账号已被锁定"}}`, req: chat, model: "m", want: Auth},
		{name: "account locked for a while by its rate", status: 429,
			body: `{"error":{"message":"请求过于频繁，账户已被临时锁定，请稍后重试"}}`, req: chat, model: "m", notAny: []Class{Auth}},
		{name: "account balance stays money", status: 429,
			body: `{"error":{"code":"1113","message":"您的账户已欠费，请充值后重试。"}}`, req: chat, model: "m", want: Quota},
		{name: "access terminated", status: 429,
			body: `{"error":{"message":"Your access was terminated due to violation of our policies, please check your email for more information. If you believe this is in error and would like to appeal, please contact support@openai.com.","type":"access_terminated","param":null,"code":null}}`,
			req:  chat, model: "m", want: Auth},
		// A blacklist: of the app id (Spark's 10015: "appid在黑名单中", the
		// credential) or of anything else (an IP: access not granted).
		{name: "app id blacklisted", status: 200,
			body: `{"header":{"code":10015,"message":"appid在黑名单中","sid":"cht000b0c24@dx1916602ea10b808550","status":2}}`,
			req:  chat, model: "m", want: Auth},
		{name: "an ip blacklisted", status: 403,
			body: `{"error":{"message":"您的 IP 在黑名单中"}}`, req: chat, model: "m", want: Forbidden},
		{name: "a connection terminated is no ban", status: 502,
			body: `{"error":{"message":"upstream connection was terminated"}}`, req: chat, model: "m", notAny: []Class{Auth}},

		// Money in other words: new-api's token allowance, Tencent Hunyuan's
		// resource packs (tencentcloud-sdk-go hunyuan/v20230901/errors.go).
		{name: "token quota is not enough", status: 403,
			body: `{"error":{"type":"new_api_error","message":"token quota is not enough, token remain quota: ＄0.019310, need quota: ＄0.769410 (request id: 20260324113418110801328YYlLV6rb)"},"type":"error"}`,
			req:  chat, model: "m", want: Quota},
		{name: "free resource pack used up", status: 400,
			body: `{"error":{"message":"免费资源包余量已用尽，请购买资源包或开通后付费。","code":"FailedOperation.FreeResourcePackExhausted"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "billing resources exhausted", status: 400,
			body: `{"error":{"message":"计费资源已耗尽。","code":"ResourceInsufficient.ChargeResourceExhaust"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "resources short are the provider's", status: 500,
			body: `{"error":{"message":"资源不足，请稍后重试"}}`, req: chat, model: "m", want: ServerError},

		// Access not granted: a plan without the model, a service not
		// activated, identity not verified, no permission.
		{name: "plan does not include the model", status: 429,
			body: `{"error":{"code":"1311","message":"当前订阅套餐暂未开放glm-4.6权限"}}`, req: chat, model: "glm-4.6", want: Forbidden},
		{name: "service not activated", status: 400,
			body: `{"error":{"message":"服务未开通，请前往控制台申请试用。","code":"FailedOperation.ServiceNotActivated"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "identity not verified", status: 400,
			body: `{"error":{"message":"用户未实名，请先进行实名认证。","code":"FailedOperation.UserUnAuthError"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "no permission to access", status: 200,
			body: `{"error_code":6,"error_msg":"No permission to access data"}`, req: chat, model: "m", want: Forbidden},
		{name: "not allowed for your account", status: 404,
			body: `{"error":{"message":"Accessing the model via Model ID is not allowed for your account. Please use a custom endpoint ID instead. Request id: 021718000000000abc","type":"NotFound","code":"InvalidEndpointOrModel.ModelIDAccessDisabled"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "not allowed for this model is a gap", status: 400,
			body: `{"error":{"message":"Parameter top_k is not allowed for this model."}}`, req: chat, model: "m", notAny: []Class{Forbidden}},

		// Volcengine Ark's content-safety codes (volcengine.com/docs/82379/1299023).
		{name: "ark sensitive content", status: 400,
			body: `{"error":{"message":"The request failed because the input text may contain severe violation information.","type":"BadRequest","code":"SensitiveContentDetected.SevereViolation"}}`,
			req:  chat, model: "m", want: Refusal},
		{name: "ark image sensitive content", status: 400,
			body: `{"error":{"message":"The request failed because the input image may contain real person. Request ID: 021718000000000abc","type":"BadRequest","code":"InputImageSensitiveContentDetected.PrivacyInformation"}}`,
			req:  chat, model: "m", want: Refusal},
		{name: "ark output risk", status: 400,
			body: `{"error":{"message":"The request could not be processed because the output text includes sensitive content that violates ContentSecurityDetection.ARK Request ID: 021718000000000abc;CSDRequestId: 7f3a;Label: politics;SubLabel: x","type":"BadRequest","code":"OutputTextRiskDetection"}}`,
			req:  chat, model: "m", want: Refusal},
		{name: "the moderation service failing is no refusal", status: 400,
			body: `{"error":{"message":"The service encountered an internal error during content security detection.","type":"BadRequest","code":"ContentSecurityDetectionError"}}`,
			req:  chat, model: "m", notAny: []Class{Refusal}},

		// What a server does not serve: Ollama's embedding-only model at the
		// chat endpoint (server/images.go errCapabilityCompletion); a model
		// Hugging Face's serverless API will not load.
		{name: "does not support completion", status: 400,
			body: `{"error":"registry.ollama.ai/library/nomic-embed-text:latest does not support completion"}`,
			req:  chat, model: "nomic-embed-text", want: Unknown},
		{name: "does not support completion in a 5xx", status: 500,
			body: `{"error":"registry.ollama.ai/library/nomic-embed-text:latest does not support completion"}`,
			req:  chat, model: "nomic-embed-text", want: Unknown},
		{name: "does not support completions with logprobs is a gap", status: 400,
			body: `{"error":"this model does not support completions with logprobs"}`, req: chat, model: "m", want: Unknown},
		{name: "too large to be loaded", status: 403,
			body: `{"error":"The model meta-llama/Meta-Llama-3-8B-Instruct is too large to be loaded automatically (16GB > 10GB). Please use Spaces (https://huggingface.co/spaces) or Inference Endpoints (https://huggingface.co/inference-endpoints)."}`,
			req:  chat, model: "meta-llama/Meta-Llama-3-8B-Instruct", want: Unavailable},
		{name: "an image too large to be loaded is the request's", status: 400,
			body: `{"error":"The image is too large to be loaded"}`, req: chat, model: "m", notAny: []Class{Unavailable}},

		// A payload byte cap (DashScope, alibabacloud.com/help/en/model-studio/error-code).
		{name: "max bytes per data-uri item", status: 400,
			body: `{"error":{"message":"Exceeded limit on max bytes per data-uri item : 10485760","type":"invalid_request_error"}}`,
			req:  chat, model: "m", want: Overflow},
		{name: "bytes per minute is a throttle", status: 429,
			body: `{"error":{"message":"Exceeded limit on max bytes per minute"}}`, req: chat, model: "m", want: RateLimited},

		// Relays and self-hosted servers about their own state (new-api
		// middleware and i18n, one-api, LiteLLM auth_checks.py, TabbyAPI,
		// Kong's llm proxy handler, Bifrost's governance plugin).
		{name: "a total limit with a short window is a throttle", status: 429,
			body: `{"error":{"message":"You have reached the total request limit: maximum 100 requests in 1 minutes, including failed attempts (request id: 20260324113418110801328YYlLV6rb)","type":"new_api_error","param":"","code":""}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "user banned", status: 403,
			body: `{"error":{"message":"用户已被封禁 (request id: 2025022119301651234567)","type":"one_api_error"}}`, req: chat, model: "m", want: Auth},
		{name: "virtual key inactive", status: 403,
			body: `{"type":"virtual_key_blocked","is_bifrost_error":false,"status_code":403,"error":{"message":"Virtual key is inactive"}}`, req: chat, model: "m", want: Auth},
		{name: "virtual key expired", status: 403,
			body: `{"type":"virtual_key_blocked","is_bifrost_error":false,"status_code":403,"error":{"message":"Virtual key has expired"}}`, req: chat, model: "m", want: Auth},
		{name: "a model not allowed for the key stays forbidden", status: 403,
			body: `{"type":"model_blocked","is_bifrost_error":false,"status_code":403,"error":{"message":"Model 'gpt-4o' is not allowed for this virtual key"}}`, req: chat, model: "gpt-4o", want: Forbidden},
		{name: "the key's team is gone", status: 404,
			body: `{"error":{"message":"{'error': \"Team doesn't exist in db. Team=team-abc. Create team via ` + "`/team/new`" + ` call.\"}","type":"auth_error","param":"None","code":"404"}}`,
			req:  chat, model: "m", want: Auth},
		{name: "channel disabled", status: 403,
			body: `{"error":{"message":"This channel has been disabled (request id: 20260324113418110801328YYlLV6rb)","type":"new_api_error","param":"","code":""}}`, req: chat, model: "m", want: Unavailable},
		{name: "channel disabled, in Chinese", status: 403,
			body: `{"error":{"message":"该渠道已被禁用 (request id: 2025022119301651234567)","type":"one_api_error"}}`, req: chat, model: "m", want: Unavailable},
		{name: "no embedding models loaded", status: 503,
			body: `{"detail":"No embedding models are currently loaded."}`, req: `{"model":"m","input":"hi"}`, model: "m", want: Unknown},
		{name: "a vision projector not loaded is a gap", status: 503,
			body: `{"detail":"No vision models are loaded for images"}`, req: chat, model: "m", notAny: []Class{Unavailable}},
		{name: "chat completions disabled", status: 422,
			body: `{"detail":"Chat completions are disabled because a prompt template is not set."}`, req: chat, model: "m", want: Unknown},
		{name: "streaming disabled is a gap", status: 422,
			body: `{"detail":"Streaming is disabled on this server."}`, req: chat, model: "m", notAny: []Class{Unavailable}},
		{name: "a route pinned to another model", status: 400,
			body: `{"error":{"message":"cannot use own model - must be: gpt-3.5-turbo"}}`, req: chat, model: "gpt-4o", want: Unavailable},
	})
}

// TestWaitSecondsIsARetryHint: "Please wait N seconds before retrying" is a
// wait, as "try again in N seconds" is.
func TestWaitSecondsIsARetryHint(t *testing.T) {
	v := Classify(Response{Status: 429, Body: []byte(`{"error":{"code":"RateLimitReached","message":"Rate limit of 15 per 60s exceeded for UserByModelByMinute. Please wait 25 seconds before retrying."}}`)})
	if v.Class != RateLimited || v.RetryAfter != 25*time.Second {
		t.Fatalf("got %s, retry after %s; want rate_limited, 25s", v.Class, v.RetryAfter)
	}
}

// TestHasMemberOnBrokenJSON: the request is read as it came; unbalanced
// brackets must not panic the member scan.
func TestHasMemberOnBrokenJSON(t *testing.T) {
	for _, req := range []string{`}}]]{"quota":1}`, `]{"a":{"properties":{"quota":1}}`, `{"quota`, `"quota":`, `{"a":"\"quota\":1"}`} {
		_ = hasMember([]byte(req), []byte("quota"))
	}
	if !hasMember([]byte(`}}{"quota":1}`), []byte("quota")) {
		t.Error("a member after stray closers not found")
	}
	if hasMember([]byte(`{"a":"\"quota\":1"}`), []byte("quota")) {
		t.Error("a member name inside a string value read as a member")
	}
}
