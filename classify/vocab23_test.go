package classify

import "testing"

// TestVocabularyInside2xx: errors that arrive inside a 2xx (a finish reason
// with nothing generated, a vendor's status envelope, a stream's error
// event, a Responses response.failed), from the vendors' documented enums
// and error-code tables (DeepSeek's, Zhipu's and Mistral's finish reasons;
// iFlytek Spark's and Baidu Qianfan's error codes; MiniMax's base_resp;
// TGI's stream errors; OpenAI's ResponseError codes). Each positive failed
// before its rule.
func TestVocabularyInside2xx(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	choice := func(finish, content string) string {
		return `{"id":"x","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"` + content + `"},"finish_reason":"` + finish + `"}],"usage":{"prompt_tokens":10,"completion_tokens":0,"total_tokens":10}}`
	}
	failed := func(code string) string {
		return "event: response.failed\ndata: {\"type\":\"response.failed\",\"sequence_number\":3,\"response\":{\"id\":\"resp_x\",\"object\":\"response\",\"status\":\"failed\",\"error\":{\"code\":\"" + code + "\",\"message\":\"\"},\"incomplete_details\":null,\"output\":[]}}\n\n"
	}
	spark := func(code, msg string) string {
		return `{"header":{"code":` + code + `,"message":"` + msg + `","sid":"cht000b0c24@dx1916602ea10b808550","status":2}}`
	}
	runHostile(t, []hostileCase{
		// Finish reasons with nothing generated.
		{name: "deepseek insufficient system resource", status: 200, body: choice("insufficient_system_resource", ""), req: chat, model: "m", want: ServerError},
		{name: "zhipu network error", status: 200, body: choice("network_error", ""), req: chat, model: "m", want: ServerError},
		{name: "zhipu sensitive", status: 200, body: choice("sensitive", ""), req: chat, model: "m", want: Refusal},
		{name: "zhipu context window exceeded", status: 200, body: choice("model_context_window_exceeded", ""), req: chat, model: "m", want: ContextLength},
		{name: "mistral model length", status: 200, body: choice("model_length", ""), req: chat, model: "m", want: ContextLength},
		// A window finish after thinking only is an answer spent on
		// thinking, as OpenAI's "length" after reasoning is: served.
		{name: "mistral thinking chunks only", status: 200,
			body: `{"id":"x","object":"chat.completion","created":1,"model":"magistral-medium-latest","choices":[{"index":0,"message":{"role":"assistant","content":[{"type":"thinking","thinking":[{"type":"text","text":"Let me think about this"}]}]},"finish_reason":"model_length"}]}`,
			req:  chat, model: "m", notAny: []Class{ContextLength}},

		// Spark's header codes and Baidu's error_code, by their words.
		{name: "spark output refused", status: 200, body: spark("10014", "输出内容涉及敏感信息，审核不通过，后续结果无法展示给用户"), req: chat, model: "m", want: Refusal},
		{name: "spark input violation", status: 200, body: spark("10019", "表示本次会话内容有涉及违规信息的倾向；建议开发者收到此错误码后给用户一个输入涉及违规的提示"), req: chat, model: "m", want: Refusal},
		{name: "spark too many tokens", status: 200, body: spark("10907", "token数量超过上限。对话历史+问题的字数太多，需要精简输入"), req: chat, model: "m", want: ContextLength},
		{name: "spark service busy", status: 200, body: spark("10110", "服务忙，请稍后再试"), req: chat, model: "m", want: ServerError},
		{name: "spark capacity short", status: 200, body: spark("10008", "服务容量不足，联系工作人员"), req: chat, model: "m", want: ServerError},
		{name: "spark one request at a time cools nothing", status: 200, body: spark("10007", "用户流量受限：服务正在处理用户当前的问题，需等待处理完成后再发送新的请求"), req: chat, model: "m", want: Unknown},
		{name: "spark engine error", status: 200, body: spark("10012", "引擎内部错误"), req: chat, model: "m", want: ServerError},
		{name: "baidu access token invalid", status: 200, body: `{"error_code":110,"error_msg":"Access token invalid or no longer valid"}`, req: chat, model: "m", want: Auth},
		{name: "baidu access token expired", status: 200, body: `{"error_code":111,"error_msg":"Access token expired"}`, req: chat, model: "m", want: Auth},
		{name: "the account locked stays auth", status: 200, body: spark("11200", "账户存违规行为,账号已被锁定"), req: chat, model: "m", want: Auth},
		{name: "an mcp server's token stays the client's", status: 200,
			body: `{"error":{"message":"Access token expired for MCP server 'notion'"}}`, req: chat, model: "m", want: BadRequest},
	})
	runHostile(t, []hostileCase{
		// OpenAI's ResponseError codes in a response.failed.
		{name: "vector store timeout", status: 200, stream: true, body: failed("vector_store_timeout"), want: Timeout},
		{name: "image content policy", status: 200, stream: true, body: failed("image_content_policy_violation"), want: Refusal},
		{name: "misalignment policy", status: 200, stream: true, body: failed("misalignment_policy_violation"), want: Refusal},
		{name: "invalid base64 image", status: 200, stream: true, body: failed("invalid_base64_image"), want: BadRequest},
		{name: "empty image file", status: 200, stream: true, body: failed("empty_image_file"), want: BadRequest},
		{name: "unsupported image media type", status: 200, stream: true, body: failed("unsupported_image_media_type"), want: BadRequest},
		{name: "image too large", status: 200, stream: true, body: failed("image_too_large"), want: Overflow},
		{name: "failed to download image", status: 200, stream: true, body: failed("failed_to_download_image"), want: Unknown},
		{name: "server error stays", status: 200, stream: true, body: failed("server_error"), want: ServerError},
		// TGI's stream errors of its input validation: the client's input,
		// as the same words at a 422 are.
		{name: "tgi validation in a stream", status: 200, stream: true,
			body: "data:{\"error\": \"Input validation error: `top_p` must be > 0.0 and < 1.0\", \"error_type\": \"validation\"}\n\n", want: BadRequest},
		{name: "tgi validation of a size", status: 200, stream: true,
			body: "data:{\"error\": \"Input validation error: `stop` supports up to 4 stop sequences. Given: 6\", \"error_type\": \"validation\"}\n\n", want: BadRequest},
		{name: "tgi generation error stays the server's", status: 200, stream: true,
			body: "data:{\"error\": \"Request failed during generation: Server error: CUDA out of memory\", \"error_type\": \"generation\"}\n\n", want: ServerError},
	})
}

// TestVocabularyOtherLanguages: relays' and regional vendors' messages in
// their own words (new-api's en, ja, ru, vi, ko locale files; Yandex AI
// Studio's and Naver CLOVA Studio's error tables).
func TestVocabularyOtherLanguages(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	env := func(msg string) string { return `{"error":{"message":"` + msg + `","type":"new_api_error"}}` }
	runHostile(t, []hostileCase{
		{name: "upstream load saturated", status: 429, body: env("Current group upstream load is saturated, please try again later (request id: 20260412093015123456789abcdEFGH)"), req: chat, model: "m", want: ServerError},
		{name: "pre-consume quota failed", status: 403, body: env("Failed to pre-consume quota, remaining: ＄0.012000, required: ＄0.769410 (request id: 20260412093015123456789abcdEFGH)"), req: chat, model: "m", want: Quota},
		{name: "balance short, japanese", status: 403, body: env("残高不足 (request id: 20260412093015123456789abcdEFGH)"), req: chat, model: "m", want: Quota},
		{name: "yandex model uri", status: 400, body: `{"error":{"grpcCode":3,"httpCode":400,"message":"invalid model_uri","httpStatus":"Bad Request","details":[]}}`, req: chat, model: "m", want: Unavailable},
		{name: "yandex model uri unparsed", status: 400, body: `{"error":{"grpcCode":3,"httpCode":400,"message":"Failed to parse model URI","httpStatus":"Bad Request","details":[]}}`, req: chat, model: "m", want: Unavailable},
		{name: "an image uri is the client's", status: 400, body: `{"error":{"message":"Failed to parse image URI"}}`, req: chat, model: "m", notAny: []Class{Unavailable}},
	})
}
