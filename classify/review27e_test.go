package classify

import "testing"

// TestReviewRoundTwentySevenE: hostile review of 6efa6fb..4f12f9b (review-4
// fixes, hunts 34av/34au). Each case fails at 4f12f9b; cases 1-4, 8, 9 passed
// at 6efa6fb (regressions), 5-7 failed there too (the new rules' stated aim
// not reached). Bodies marked REAL are
// quoted from the cited source; INVENTED ones are marked so.
func TestReviewRoundTwentySevenE(t *testing.T) {
	runHostile(t, []hostileCase{
		// 1 STEERING -> auth (pages the operator, cools the account). pick.go
		// wholeValue now wants the URL in the text to be a WHOLE JSON string of
		// the request; at 6efa6fb a substring sufficed. A client's own file URL
		// that the upstream quotes without its query (signed URLs), that the
		// client's encoder escapes (Go's json: & as \u0026; PHP: / as \/), or
		// with a trailing slash, is no longer "the client's URL", so the relay
		// wording's "Please re-authenticate" is read as Detour's credential.
		// Body INVENTED (the review27c #5 wording); requests INVENTED.
		{name: "the client's signed URL quoted without its query", status: 400,
			body: `{"error":{"message":"Failed to download file from https://files.example.com/share/1abc: 401 Unauthorized. Please re-authenticate."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://files.example.com/share/1abc?X-Amz-Signature=abc"}}]}]}`, model: "m", notAny: []Class{Auth}},
		{name: "the client's URL with & escaped by Go's encoder", status: 400,
			body: `{"error":{"message":"Failed to download file from https://files.example.com/share/1abc?dl=1&t=abc: 401 Unauthorized. Please re-authenticate."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://files.example.com/share/1abc?dl=1\u0026t=abc"}}]}]}`, model: "m", notAny: []Class{Auth}},
		{name: "the client's URL with slashes escaped by PHP's encoder", status: 400,
			body: `{"error":{"message":"Failed to download file from https://files.example.com/share/1abc: 401 Unauthorized. Please re-authenticate."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https:\/\/files.example.com\/share\/1abc"}}]}]}`, model: "m", notAny: []Class{Auth}},
		{name: "the client's URL in a 500, quoted without its query", status: 500,
			body: `{"error":{"message":"Failed to download file from https://files.example.com/share/1abc: 401 Unauthorized. Please re-authenticate."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://files.example.com/share/1abc?x=1"}}]}]}`, model: "m", notAny: []Class{Auth}},

		// 2 MISREAD -> bad_request stops the walk. SiliconFlow's 20015
		// "\"messages\" in request are illegal" is its umbrella for rules
		// stricter than OpenAI's: a system-only request ("No user query found
		// in messages", REAL: find_string id 66427725207, 30/30 failures of a
		// request other providers served); tool-role messages on its streaming
		// path (REAL bare message: langchain4j app comment, id 59717949700,
		// "某些 provider 的 streaming 接口不支持 tool-role … 会直接报"); also
		// reasoning_content in history (id 70373458616) and control characters
		// (id 62185215299). At 6efa6fb these were unknown (the walk moved on).
		{name: "siliconflow: no user query in a system-only request", status: 400,
			body: `{"code":20015,"message":"\"messages\" in request are illegal: No user query found in messages","data":null}`,
			req:  `{"model":"r","messages":[{"role":"system","content":"Classify the text: foo"}]}`, model: "deepseek-ai/DeepSeek-V3", notAny: []Class{BadRequest}},
		{name: "siliconflow: bare 20015 on a streamed tool turn", status: 400,
			body: `{"code":20015,"message":"\"messages\" in request are illegal.","data":null}`,
			req:  `{"model":"r","stream":true,"messages":[{"role":"user","content":"hi"},{"role":"assistant","content":"","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},{"role":"tool","tool_call_id":"c1","content":"ok"}]}`, model: "deepseek-ai/DeepSeek-V3", notAny: []Class{BadRequest}},

		// 3 MISREAD -> bad_request stops the walk. scalar.go now reads Azure's
		// details[].param JSON Pointer as the param, so any schema failure of
		// Azure's validator is "the client's". Azure AI Foundry's Responses
		// schema is stricter than OpenAI's (requires "type" on input items and
		// "annotations" on output_text: Azure/azure-sdk-for-python#44493): a
		// request OpenAI serves stops here instead of failing over. Body REAL
		// (microsoft/agent-framework#3003); request INVENTED (OpenAI-valid).
		{name: "azure's stricter responses schema is no client fault", status: 400,
			body: `{"error":{"code":"invalid_payload","message":"Invalid payload","param":null,"type":"invalid_request_error","details":[{"code":"ValidationError","message":"type: Value is \"array\" but should be \"string\"","param":"/input","type":"error"},{"code":"ValidationError","message":"required: Required properties [\"type\"] are not present","param":"/input/1","type":"error"},{"code":"ValidationError","message":"type: Value is \"array\" but should be \"string\"","param":"/input/1/content","type":"error"},{"code":"ValidationError","message":"required: Required properties [\"annotations\"] are not present","param":"/input/1/content/0","type":"error"}],"additionalInfo":{"request_id":"6898a7898798c5ac324a06a56cd983c7"}}}`,
			req:  `{"model":"r","input":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"output_text","text":"Hello"}]},{"role":"user","content":"again"}]}`, model: "gpt-4.1", notAny: []Class{BadRequest}},
		// Same rule, a member this deployment's schema does not list. INVENTED.
		{name: "azure: a member this deployment's schema lacks", status: 400,
			body: `{"error":{"code":"invalid_payload","message":"Invalid payload","details":[{"code":"ValidationError","message":"additionalProperties: Property \"reasoning\" is not allowed","param":"/reasoning"}]}}`,
			req:  `{"model":"r","input":"hi","reasoning":{"effort":"low"}}`, model: "gpt-4.1", notAny: []Class{BadRequest}},

		// 4 MISREAD -> bad_request stops the walk. A route's targets may serve
		// different Gemini models (the client names the route, Detour replaces
		// `model`): a cache made for the second target's model fails at the
		// first with "Cached content model does not match the model in the
		// request" — the walk's doing, as "not issued to this caller" is
		// (phrasesinput.go reads that one unknown for the same reason). At
		// 6efa6fb it was unknown and the next target served it. Body REAL
		// wording (vocab27 "cached content for another model"); request INVENTED.
		{name: "cached content for the model another target serves", status: 400,
			body: `{"error":{"code":400,"message":"Cached content model does not match the model in the request.","status":"INVALID_ARGUMENT"}}`,
			req:  `{"model":"gemini-flash","messages":[{"role":"user","content":"hi"}],"cached_content":"cachedContents/abc123def456"}`, model: "gemini-2.5-flash", notAny: []Class{BadRequest}},

		// 5 STEERING -> unknown (the endpoint's failure uncounted, mid-stream).
		// blocks.go keeps the event's type only where decide's evidence differs
		// from "type:invalid_request_error"; an echoed phrase yields
		// "type:invalid_request_error+echo", which differs, so a prompt quoting
		// the relay's words turns its stream failure unknown (cools nothing;
		// the client cannot be failed over mid-stream). INVENTED.
		{name: "an echoed phrase keeps a relay's mid-stream failure uncounted", status: 200, stream: true,
			body: "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"Upstream request failed: prompt is too long\"}}\n\n",
			req:  `{"model":"m","messages":[{"role":"user","content":"why does my tool say prompt is too long?"}],"stream":true}`, model: "m", want: ServerError},

		// 6 MISREAD (REAL, entrenched). The new type code makes Mistral's
		// invalid_request_message_order bad input in any wording; its commonest
		// message is a template rule of Mistral's, "Expected last role User or
		// Tool (or Assistant with prefix True) for serving but got assistant"
		// (find_string ids 62181080292, 54879707748: "other providers silently
		// treat it as a continuation"), i.e. an assistant prefill OpenAI and
		// Anthropic serve. Same reasoning as review27d's "first message should
		// be from" (unknown). (The pre-existing "expected last role" phrase
		// reads it bad_request too; both must move.)
		{name: "mistral's assistant-last rule is a template's", status: 400,
			body: `{"object":"error","message":"Expected last role User or Tool (or Assistant with prefix True) for serving but got assistant","type":"invalid_request_message_order","param":null,"code":"3230"}`,
			req:  `{"model":"r","messages":[{"role":"user","content":"Write a haiku"},{"role":"assistant","content":"Autumn"}]}`, model: "mistral-large-latest", notAny: []Class{BadRequest}},

		// 7 STEERING (client-written text -> quota). "connectors failed" is
		// ranked before the account wording only in mainPhrases, not in the
		// 5xx set ("mcp server" is in both): the connector's own reply,
		// written by the client's server, still decides a 5xx. INVENTED status.
		{name: "a client's connector's words in a 5xx", status: 500,
			body: `{"message":"connectors failed with continue on failure disabled: connector xyz failed with message 'insufficient balance'"}`,
			req:  `{"model":"command-r-plus","message":"hi","connectors":[{"id":"xyz"}]}`, model: "command-r-plus", notAny: []Class{Quota, Auth}},

		// 8 MISREAD (low). "number of urls" has no notRate and no cap word: a
		// throttle on URL fetches reads overflow at a 429 (moves on, Retry-After
		// lost); "Invalid number of URLs: at least one url is required" reads
		// overflow, not bad input. INVENTED.
		{name: "a per-minute url throttle", status: 429,
			body: `{"error":{"message":"Too many requests: number of urls fetched per minute exceeded, retry after 20s"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}]}`, model: "m", want: RateLimited},

		// 9 STEERING (low, self-only). resourceKeys are matched at any depth and
		// resourceWords in any text, unpaired: an app that tags its own
		// conversation in metadata ({"metadata":{"conversation_id":…}}, which
		// names nothing stored at the provider) gets a gone deployment's 404
		// read as its own whenever the text says "response"/"object"/"file".
		// Its requests stop walking and never cool the endpoint. INVENTED 404.
		{name: "a conversation id in metadata names nothing stored", status: 404,
			body: `{"error":{"message":"The requested deployment could not be found. No response was generated.","type":"not_found_error"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}],"metadata":{"conversation_id":"c-123"}}`, model: "m", want: Unavailable},
	})
}
