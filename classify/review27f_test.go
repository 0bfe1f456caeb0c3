package classify

import "testing"

// TestReviewRoundTwentySevenF: hostile review of 4f12f9b..5d85596 (review-5
// fixes, hunts 35aw/35ax). Every case fails at 5d85596. Bodies marked REAL
// are quoted from the cited source; INVENTED ones are marked so.
func TestReviewRoundTwentySevenF(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	img := func(u string) string {
		return `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"` + u + `"}}]}]}`
	}
	dl := func(u string) string {
		return `{"error":{"message":"Failed to download file from ` + u + `: 401 Unauthorized. Please re-authenticate."}}`
	}
	runHostile(t, []hostileCase{
		// 1 MISREAD -> quota (pages the operator, cools the whole account for
		// account_cooldown). codes.go's new _error stem rule reads SenseNova's
		// per-minute throttle, type quota_exceeded_error, as the strong code
		// quota_exceeded. At 4f12f9b: rate_limited (phrase:rpm / status:429).
		// REAL bodies: find_string ids 61969033684, 56755128235 (Go relay,
		// "sn429RPM"), 70248216447 ("rps exhausted", "实测同一时刻并发请求会直接报
		// 429"), 57669809085 ("rpm exhausted = Requests Per Minute … 这是速率
		// 限制，不是配额不足"), 71268365947 (a gateway's bug report: the same body
		// misread as quota_exhausted cooled its key for hours).
		{name: "sensenova rpm exhausted carries quota_exceeded_error", status: 429,
			body: `{"error":{"message":"rpm exhausted","type":"quota_exceeded_error","code":"8"}}`,
			req:  chat, model: "deepseek-v4-flash", want: RateLimited},
		{name: "sensenova rps exhausted carries quota_exceeded_error", status: 429,
			body: `{"error":{"message":"rps exhausted","type":"quota_exceeded_error","code":"8"}}`,
			req:  chat, model: "deepseek-v4-flash", want: RateLimited},
		{name: "sensenova rpm body as pi relays it (no error envelope)", status: 429,
			body: `{"message":"rpm exhausted","type":"quota_exceeded_error","code":"8"}`,
			req:  chat, model: "SenseChat-5", want: RateLimited},

		// 2 STEERING (hides the server's failure). llama.cpp's "context shift is
		// disabled" is also what its server sends for its own slot/prompt-cache
		// bug: ggml-org/llama.cpp#16983 ("Regression: 'context shift is
		// disabled' after filling context": a NEW short conversation fails once
		// another slot filled up; first bad commit b52edd2) and, before
		// ggml-org/llama.cpp#13577, when generation (not the prompt) reached
		// n_ctx. As context_length it counts nothing, is not retried, and moves
		// only to a larger declared window; at 4f12f9b it was server_error.
		// Body REAL (llama.cpp server_error shape); short request INVENTED.
		{name: "context shift is disabled for a short prompt (server bug)", status: 500,
			body: `{"error":{"code":500,"message":"context shift is disabled","type":"server_error"}}`,
			req:  chat, model: "m", notAny: []Class{ContextLength}},

		// 3 MISREAD -> bad_request stops the walk. Ollama's /v1 "invalid tool
		// call arguments" is Ollama re-parsing the history's arguments string as
		// a JSON object, stricter than OpenAI (which takes any string). Older
		// Ollama rejected even arguments "" (a no-argument tool; later versions
		// map ""/"null" to {}: find_string id 61809517149 vs 70159985868);
		// Anthropic-translating relays say the same (id 55695859910). Same
		// reasoning as review27e's SiliconFlow 20015 (unknown). Body REAL
		// (Ollama openai.go errors.New), request INVENTED.
		{name: "ollama rejects empty tool arguments others accept", status: 400,
			body:  `{"error":{"message":"invalid tool call arguments","type":"invalid_request_error","param":null,"code":null}}`,
			req:   `{"model":"m","messages":[{"role":"user","content":"time?"},{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"now","arguments":""}}]},{"role":"tool","tool_call_id":"c1","content":"12:00"}]}`,
			model: "qwen3", notAny: []Class{BadRequest}},

		// 4 STEERING -> auth (pages, cools the account) for the client's own
		// URL. namesClientURL still misses the client's URL as fetchers print
		// it: percent-encoded (Python requests/httpx, Go's url.URL.String), host
		// lowercased (urllib3/httpx normalise it), wrapped in markdown
		// backticks or <>; and maxURLs (new) gives up before a fifth URL (a
		// regression: 4f12f9b read it as the client's). Body INVENTED (the
		// review27c/e wording); requests INVENTED.
		{name: "client URL with a space, percent-encoded by the fetcher", status: 400,
			body: dl("https://files.example.com/my%20file.png"), req: img("https://files.example.com/my file.png"), model: "m", notAny: []Class{Auth}},
		{name: "client URL with non-ASCII path, percent-encoded", status: 400,
			body: dl("https://files.example.com/%E5%9B%BE.png"), req: img("https://files.example.com/图.png"), model: "m", notAny: []Class{Auth}},
		{name: "client URL host lowercased by the fetcher", status: 400,
			body: dl("https://files.example.com/Share/1abc"), req: img("https://Files.Example.com/Share/1abc"), model: "m", notAny: []Class{Auth}},
		{name: "client URL in markdown backticks", status: 400,
			body: dl("`https://files.example.com/share/1abc`"), req: img("https://files.example.com/share/1abc"), model: "m", notAny: []Class{Auth}},
		{name: "client URL after four others (maxURLs regression)", status: 400,
			body: dl("https://docs.x.com/a https://docs.x.com/b https://docs.x.com/c https://docs.x.com/d https://files.example.com/share/1abc"),
			req:  img("https://files.example.com/share/1abc"), model: "m", notAny: []Class{Auth}},

		// 5 MISREAD (low) -> bad_request stops the walk. "to be set to true"
		// has no subject: a model's own requirement ("requires stream to be
		// set to true", as stream-only models have) is a capability others lack
		// (unknown), not the client's mistake. INVENTED wording.
		{name: "a stream-only model's requirement", status: 400,
			body: `{"error":{"message":"This model requires stream to be set to true","type":"invalid_request_error"}}`,
			req:  chat, model: "qwq-plus", notAny: []Class{BadRequest}},

		// 6 MISREAD (low) -> refusal stops the walk in a 5xx. The stem rule
		// makes content_filter_error the strong content_filter; Azure's
		// content_filter_error means the filter was DOWN ("The contents are not
		// filtered", Azure OpenAI docs via developersdigest.tech). A relay
		// surfacing it as a 5xx hides the outage. INVENTED status/body.
		{name: "content filter unavailable as a 503", status: 503,
			body: `{"error":{"message":"Content filter service is unavailable, please retry","type":"content_filter_error"}}`,
			req:  chat, model: "m", notAny: []Class{Refusal}},
	})
}
