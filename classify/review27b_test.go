package classify

import "testing"

// TestReviewRoundTwentySevenB: hostile review of the rules added since
// 64f85e9 (git diff 64f85e9..HEAD -- classify docs). Every case failed at
// 9869978; "base" notes what 64f85e9 read. REAL = wording from a public
// source (cited); INVENTED = mechanism only.
func TestReviewRoundTwentySevenB(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// 1 STEERING -> server_error (counted; cools the endpoint after failure_threshold).
		// colonStatusLead drops the relayed status whenever the request holds just "NNN: <word>"
		// anywhere (echoed(req, t[:e])); a prompt quoting a log line ("400: Invalid value") is
		// common, and the client's own missing previous_response_id (the case vocab27 pins as
		// notAny ServerError) is then read stream:error+echo = server_error. Body REAL (Llama
		// Stack's stream error, as vocab27_test.go), prompt INVENTED. base: server_error too; the
		// new rule's protection is bypassed by any client.
		{name: "llama stack 400 lead, prompt quotes a log line", status: 200, stream: true,
			body: "data: {\"error\":{\"message\":\"400: Invalid value: Response with id resp_0a1b2c3d-4e5f not found\"}}\n\n",
			req:  `{"model":"m1","input":"why do I get 400: Invalid value errors from my server?","stream":true,"previous_response_id":"resp_0a1b2c3d-4e5f"}`, model: "m1",
			notAny: []Class{ServerError, Unavailable}},

		// 2 MISREAD -> bad_request (stops the walk, x-should-retry:false). "not issued to this
		// caller" is what a gateway's own FAILOVER to another account causes: the upstream binds
		// encrypted reasoning to the caller (account + egress), and a replay at another account
		// fails (REAL: a relay's test, public code id 68593186262, "上游把 reasoning 密文绑定到发起方
		// （账号 + 出口）；换出口/账号回放时固定报 'was not issued to this caller'", body verbatim;
		// id 68306680037: "gateway failover retries (which surface as `reasoning
		// encrypted_content was not issued to this caller`)"). Detour walking from account A to
		// B is exactly that; the issuing endpoint may still serve it. base: unknown (status:400).
		{name: "foreign reasoning echo after an account switch", status: 400,
			body:  "{\"model\":\"muse-spark-1.3-contributor\",\"error\":{\"param\":null,\"type\":\"invalid_request_error\",\"message\":\"Error from provider (Console): Upstream request failed: [invalid_request_error] reasoning `encrypted_content` was not issued to this caller\"}}",
			req:   `{"model":"muse-spark-1.3-contributor","store":false,"include":["reasoning.encrypted_content"],"input":[{"type":"message","role":"user","content":"hi"},{"type":"reasoning","id":"rs_1","summary":[],"encrypted_content":"Zm9yZWlnbg=="},{"type":"message","role":"user","content":"go on"}]}`,
			model: "muse-spark-1.3-contributor", want: Unknown},

		// 3 STEERING -> unavailable (endpoint cools unavailable_cooldown, for everyone).
		// "does not support model" has no subject check: a feature the client asked for that
		// "does not support model X" reads as X gone. INVENTED bodies (the phrase's only real
		// LLM source is LLM Gateway's "Provider p does not support model m", chat.ts:722).
		// base: unknown (phrase:does not support).
		{name: "a tool that does not support the model", status: 400,
			body: `{"error":{"message":"The web_search tool does not support model gpt-4o-mini","type":"invalid_request_error"}}`,
			req:  `{"model":"gpt-4o-mini","messages":[],"tools":[{"type":"web_search"}]}`, model: "gpt-4o-mini",
			notAny: []Class{Unavailable}},
		{name: "structured outputs do not support the model", status: 400,
			body: `{"error":{"message":"Structured outputs does not support model gpt-3.5-turbo"}}`,
			req:  `{"model":"gpt-3.5-turbo","messages":[],"response_format":{"type":"json_schema"}}`, model: "gpt-3.5-turbo",
			notAny: []Class{Unavailable}},
		{name: "an API (door) that does not support the model", status: 400,
			body: `{"error":{"message":"The Batch API does not support model gpt-4o-mini-tts"}}`,
			req:  chat, model: "gpt-4o-mini-tts", want: Unknown},

		// 4 STEERING -> unavailable. "no provider available" also opens a gateway's "no provider
		// supports what this request asks" (INVENTED, as OpenRouter's "No endpoints found that
		// support …", which the table already keeps unknown). base: unknown (status:400).
		{name: "no provider available that supports the request's tools", status: 400,
			body: `{"error":{"message":"No provider available that supports tool calling for the requested model"}}`,
			req:  `{"model":"gpt-5","messages":[],"tools":[{"type":"function","function":{"name":"f"}}]}`, model: "gpt-5",
			notAny: []Class{Unavailable}},

		// 5 MISREAD -> unknown where a model_not_found code said unavailable. The door phrase
		// "not supported with the" + " api" (gap 24) also matches "… the current API key": a key
		// without the model is no door, and as unknown nothing ever cools it. INVENTED wording.
		// base: unavailable (code:model_not_found).
		{name: "model not supported with the current api key", status: 404,
			body: `{"error":{"message":"The requested model 'gpt-4o' is not supported with the current API key.","type":"invalid_request_error","code":"model_not_found"}}`,
			req:  chat, model: "gpt-4o", notAny: []Class{Unknown}},

		// 6 STEERING -> forbidden (stops the walk; counted, the endpoint cools after
		// failure_threshold). The new forbidden phrases fire on a FEATURE of the request, not
		// the model or the key. All INVENTED. base: unknown.
		{name: "a tool not supported with this kind of account", status: 400,
			body: `{"detail":"The 'web_search' tool is not supported when using Codex with a ChatGPT account."}`,
			req:  `{"model":"gpt-5","input":"hi","tools":[{"type":"web_search"}]}`, model: "gpt-5",
			notAny: []Class{Forbidden}},
		{name: "a plan without a feature the request asks for", status: 400,
			body: `{"error":{"message":"Your plan does not include access to web search. Remove the web_search tool or upgrade."}}`,
			req:  `{"model":"glm-5","input":"hi","tools":[{"type":"web_search"}]}`, model: "glm-5",
			notAny: []Class{Forbidden}},
		{name: "a tool's model not allowed", status: 400,
			body: `{"error":{"message":"Tool model not allowed: dall-e-2. Use gpt-image-1."}}`,
			req:  `{"model":"gpt-5","input":"hi","tools":[{"type":"image_generation","model":"dall-e-2"}]}`, model: "gpt-5",
			notAny: []Class{Forbidden}},

		// 7 MISREAD -> quota (pages, cools the account). The hours/days units let a "retry in
		// 1 hour" anywhere outrank a per-minute window that decided rate_limited; shortPeriod
		// guards "resets in" only. INVENTED. base: rate_limited (phrase:per minute).
		{name: "per-minute throttle with a long fallback hint", status: 429,
			body: `{"error":{"message":"Rate limit of 60 requests per minute exceeded. If you keep hitting this, retry in 1 hour or upgrade."}}`,
			req:  chat, model: "m", want: RateLimited},
		// "wait " is matched inside "await": any "await 2 days" is a 2-day wait. INVENTED.
		{name: "await is no wait", status: 429,
			body: `{"error":{"message":"Rate limit exceeded. Jobs that await 2 days of data are queued separately."}}`,
			req:  chat, model: "m", want: RateLimited},

		// 8 MISREAD -> quota. "weekly quota" (a status line) outranks the per-minute throttle
		// the message is about. INVENTED. base: rate_limited (phrase:per minute).
		{name: "per-minute throttle beside a weekly quota status", status: 429,
			body: `{"error":{"message":"Rate limit exceeded: 20 requests per minute. Weekly quota: 40% used."}}`,
			req:  chat, model: "m", want: RateLimited},

		// 9 MISREAD -> unknown (was bad_request): "stream must be set to" also words a request at
		// odds with itself (the near-miss the rule's own comment names for logprobs). INVENTED.
		{name: "stream must be set to true for stream_options", status: 400,
			body: `{"error":{"message":"Stream must be set to true when stream_options is provided"}}`,
			req:  `{"model":"m","messages":[],"stream_options":{"include_usage":true}}`, model: "m", want: BadRequest},
	})
}
