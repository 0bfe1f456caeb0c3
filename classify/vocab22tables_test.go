package classify

import "testing"

// TestVocabularyTablesRoundTwentyTwo: rows of the two largest Chinese-market
// error-code tables (Alibaba Cloud Model Studio's error-code page; Volcengine
// Ark's docs 82379/1299023) and messages the big hosted vendors document
// (AWS Bedrock's exceptions, Google's Gemini and Vertex troubleshooting,
// Azure OpenAI, OpenAI), in each vendor's envelope (classify/testdata/corpus/
// README.md, "Twenty-second round"). Each positive failed before its rule.
func TestVocabularyTablesRoundTwentyTwo(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// "Quota exceeded" at a 429 with nothing else is the throttle the
		// 429 says (DashScope's Throttling.AllocationQuota is its TPM cap;
		// Vertex's "Online prediction request quota exceeded … try again
		// later with backoff"); a free allocation spent is an allowance.
		{name: "allocated quota exceeded at a 429", status: 429,
			body: `{"error":{"message":"Allocated quota exceeded, please increase your quota limit.","code":"Throttling.AllocationQuota"}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "vertex online prediction quota at a 429", status: 429,
			body: `{"error":{"code":429,"message":"Online prediction request quota exceeded for gemini-1.5-flash. Please try again later with backoff.","status":"RESOURCE_EXHAUSTED"}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "free allocated quota exceeded", status: 429,
			body: `{"error":{"message":"Free allocated quota exceeded.","code":"Throttling.AllocationQuota"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "quota exceeded at a 403 stays quota", status: 403,
			body: `{"error":{"message":"Quota exceeded for this project."}}`, req: chat, model: "m", want: Quota},
		{name: "free trial quota exhausted", status: 429,
			body: `{"error":{"message":"Your account [2101141013] has exhausted its free trial quota for the [doubao-seed-1-6-250615] model. Request ID: 021718000000000abc","type":"TooManyRequests","code":"QuotaExceeded"}}`,
			req:  chat, model: "doubao-seed-1-6-250615", want: Quota},
		{name: "a usage quota that resets", status: 429,
			body: `{"error":{"message":"You have exceeded the weekly usage quota. It will reset at 2026-01-12 00:00:00.","type":"TooManyRequests","code":"QuotaExceeded"}}`,
			req:  chat, model: "m", want: Quota},
		{name: "commodity not purchased", status: 429,
			body: `{"error":{"message":"Commodity has not purchased yet.","code":"CommodityNotPurchased"}}`, req: chat, model: "m", want: Forbidden},
		{name: "a plan the model is not in", status: 404,
			body: `{"error":{"message":"The doubao-seed-1-6-250615 model does not support the coding plan feature. Please refer to the documentation at https://www.volcengine.com/docs/82379/1925114 to select a compatible model.","type":"NotFound","code":"UnsupportedModel"}}`,
			req:  chat, model: "doubao-seed-1-6-250615", want: Forbidden},
		{name: "a planning tool is a gap", status: 400,
			body: `{"error":{"message":"This model does not support the planning tool."}}`, req: chat, model: "m", notAny: []Class{Forbidden}},

		// The provider's load and its own timer.
		{name: "server overload at a 429", status: 429,
			body: `{"error":{"message":"The service is currently unable to handle additional requests due to server overload. Please retry later. Request ID: 021718000000000abc","type":"TooManyRequests","code":"ServerOverloaded"}}`,
			req:  chat, model: "m", want: ServerError},
		{name: "bedrock model not ready at a 429", status: 429, header: map[string][]string{"X-Amzn-Errortype": {"ModelNotReadyException"}},
			body: `{"message":"Model is not ready for inference."}`, req: chat, model: "m", want: ServerError},
		{name: "vertex scale from zero at a 429", status: 429,
			body: `Model is not yet ready for inference. Please wait while model completes scale-up from zero, then try your request again.`, req: chat, model: "m", want: ServerError},
		{name: "response timeout in a 500", status: 500,
			body: `{"error":{"message":"Response timeout!","code":"RequestTimeOut"}}`, req: chat, model: "m", want: Timeout},

		// Windows and size caps.
		{name: "message token length exceeds the model's limit", status: 400,
			body: `{"error":{"message":"Total message token length exceed model limit (10000000 tokens).","code":"InvalidParameter"}}`, req: chat, model: "m", want: ContextLength},
		{name: "ark out of context", status: 400,
			body: `{"error":{"message":"Total tokens of image and text exceed max message tokens.","type":"BadRequest","code":"OutofContextError"}}`, req: chat, model: "m", want: ContextLength},
		{name: "file size too large", status: 400,
			body: `{"error":{"message":"Multimodal file size is too large","code":"InvalidParameter"}}`, req: chat, model: "m", want: Overflow},
		{name: "too many files", status: 400,
			body: `{"error":{"message":"Too many files provided.","code":"InvalidParameter"}}`, req: chat, model: "m", want: Overflow},
		{name: "too many open files is the server's", status: 500,
			body: `{"error":{"message":"accept: too many open files"}}`, req: chat, model: "m", want: ServerError},

		// Content refused.
		{name: "ip infringement", status: 400,
			body: `{"error":{"message":"Input data is suspected of being involved in IP infringement.","code":"IPInfringementSuspect"}}`, req: chat, model: "m", want: Refusal},

		// Bad input by Ark's dotted codes and plain wording.
		{name: "missing parameter, dotted", status: 400,
			body: `{"error":{"message":"The required parameter messages is missing.","type":"BadRequest","code":"MissingParameter.messages"}}`, req: chat, model: "m", want: BadRequest},
		{name: "invalid argument, dotted", status: 400,
			body: `{"error":{"message":"Unknown the role of message: user_","type":"BadRequest","code":"InvalidArgumentError.UnknownRole"}}`, req: chat, model: "m", want: BadRequest},
		{name: "a required field", status: 400,
			body: `{"error":{"message":"The content field is a required field.","code":"InvalidParameter"}}`, req: chat, model: "m", want: BadRequest},
		{name: "required parameter missing", status: 400,
			body: `{"error":{"message":"Required parameter \"model\" missing from request.","code":"BadRequest.EmptyModel"}}`, req: chat, model: "m", want: BadRequest},
		{name: "turns that do not alternate", status: 400,
			body: `{"error":{"code":400,"message":"Please ensure that multiturn requests alternate between user and model.","status":"INVALID_ARGUMENT"}}`, req: chat, model: "m", want: BadRequest},
		{name: "image data that is no image", status: 400,
			body: `{"error":{"message":"The image data you provided does not represent a valid image. Please check your input and try again with one of the supported image formats: ['image/jpeg', 'image/png', 'image/gif', 'image/webp'].","type":"invalid_request_error","param":null,"code":null}}`,
			req:  chat, model: "m", want: BadRequest},

		// Access: a project Google has shut out, an Azure resource blocked
		// for conduct, a model not served in this region (Vertex,
		// FAILED_PRECONDITION). (Bedrock's "Model use case details have not
		// been submitted" is a gate on this account that another serves past:
		// unavailable, vocab46_test.go.)
		{name: "project denied access", status: 403,
			body: `{"error":{"code":403,"message":"Your project has been denied access. Please contact support.","status":"PERMISSION_DENIED"}}`, req: chat, model: "m", want: Auth},
		{name: "resource blocked for conduct", status: 403,
			body: `{"error":{"message":"Your resource has been temporarily blocked because we detected behavior that may violate our content policy. See https://aka.ms/aoaicodeofconduct","type":null,"param":null,"code":null}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "not servable in a region", status: 400,
			body: "{\"error\":{\"code\":400,\"message\":\"Publisher Model `projects/my-project/locations/us-central1/publishers/anthropic/models/claude-haiku-4-5@20251001` is not servable in region us-central1.\",\"status\":\"FAILED_PRECONDITION\"}}",
			req:  chat, model: "claude-haiku-4-5@20251001", want: Unavailable},
	})
}
