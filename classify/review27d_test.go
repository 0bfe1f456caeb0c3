package classify

import "testing"

// TestReviewRoundTwentySevenD: hostile review of f18e344..HEAD (and the round-27
// hunts 32ak/32al it builds on). Each case failed at 6efa6fb. Bodies marked
// REAL are quoted from the cited source; INVENTED ones are marked so.
func TestReviewRoundTwentySevenD(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// 1 MISREAD -> bad_request stops the walk for every request. "The first
		// message should be from the system or the user" is a chat template's
		// rule (Llama on Azure AI Foundry); here the request's first message IS
		// the user's, so the 500 is the server's (its template or its own
		// rewriting), yet it reads bad_request: no failover, nothing cools, and
		// every client gets x-should-retry:false while the endpoint is broken.
		// Body REAL (vocab27_test.go "first message from the system or user, a
		// 500", Azure AI Foundry MaaS); request INVENTED (user first).
		{name: "first message from system or user when it is the user's", status: 500,
			body: `{"error":{"status":500,"code":"Internal Server Error","message":"An error occurred during the request processing: The first message should be from the system or the user."}}`,
			req:  `{"model":"Meta-Llama-3.1-8B-Instruct","messages":[{"role":"user","content":"hi"}]}`, model: "Meta-Llama-3.1-8B-Instruct", notAny: []Class{BadRequest}},

		// 2 MISREAD (gap, not bad input). An assistant-first conversation (a chat
		// UI's seeded greeting) is valid at OpenAI; only this model's template
		// refuses it. As bad_request the walk stops instead of moving on to a
		// target that serves it (docs: "A capability gap outranks a bare param":
		// both cool nothing, the only difference is whether the walk may move on).
		// Wording REAL (Azure AI Foundry, as above), as a 400; request INVENTED.
		{name: "assistant-first conversation is this template's limit", status: 400,
			body: `{"error":{"status":400,"code":"Bad Request","message":"The first message should be from the system or the user."}}`,
			req:  `{"model":"m","messages":[{"role":"assistant","content":"Hello! How can I help?"},{"role":"user","content":"hi"}]}`, model: "m", want: Unknown},

		// 3 MISREAD. "must not come after" (added for Anthropic's cache_control
		// TTL order) is generic: a relay in front of Anthropic that adds its own
		// 5m cache_control breakpoint makes every Claude Code request carrying
		// ttl='1h' fail with this wording (a public Claude Code proxy documents
		// exactly that: "If we use ephemeral (5m) here while CC uses 1h later in
		// the request, Anthropic rejects with \"ttl='1h' cache_control must not
		// come after ttl='5m'\"" — find_string id 56591516699). Where the
		// client's request holds no ttl='5m' block, the order was not the
		// client's: bad_request stops the walk for every such client. Body REAL
		// wording (vocab27 "cache_control ttl order"); request INVENTED (1h only).
		{name: "ttl order the client did not write", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block"}}`,
			req:  `{"model":"claude-x","system":[{"type":"text","text":"sys","cache_control":{"type":"ephemeral","ttl":"1h"}}],"messages":[{"role":"user","content":"hi"}]}`, model: "claude-x", notAny: []Class{BadRequest}},

		// 4 MISREAD. "request size … exceeds" (gap 24) is ranked above the
		// per-minute wording and holds even at a 429: a throttle that words the
		// remaining per-minute budget as the request's size is read overflow
		// (moves on, cools nothing; the endpoint keeps taking traffic it must
		// throttle, and Retry-After is lost). INVENTED wording; suggest the
		// phrase yield to "per minute"/"rate limit"/"retry after" in the same text.
		{name: "request size over the remaining per-minute budget is a throttle", status: 429,
			body: `{"error":{"message":"Request size exceeds the remaining tokens per minute for this deployment. Please retry after 20 seconds.","type":"rate_limit_error"}}`,
			req:  chat, model: "m", want: RateLimited},

		// 5 STEERING (own answers only) / contract. "A property of the same name
		// inside a tool's schema is no such member" — but a schema's $defs
		// (definitions) entry named "headers" counts as a credential member, so
		// a plain function tool hides Detour's own invalid-key wording (no page
		// from this client's 400s). INVENTED schema; body REAL wording (OpenAI
		// "Incorrect API key provided" family).
		{name: "a $defs entry named headers is no credential", status: 400,
			body: `{"error":{"message":"Invalid API key provided","type":"invalid_request_error"}}`,
			req:  `{"model":"m","messages":[],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object","$defs":{"headers":{"type":"object"}},"properties":{"h":{"$ref":"#/$defs/headers"}}}}}]}`, model: "m", want: Auth},

		// 6 STEERING (own answers only). notClient compares the URL in the text
		// with the request by substring: a relay naming its upstream's bare
		// origin ("https://api.anthropic.com") is "a URL the client sent" for
		// any prompt that mentions a longer URL on that origin, so the relay's
		// dead OAuth credential stops paging for those requests. INVENTED
		// wording after the relay messages of 7db1c87. Suggest: the whole URL
		// must be echoed with a URL boundary after it in the request, and
		// only URLs the request holds as member values (image_url.url,
		// file_url, server_url), not prose.
		{name: "a relay's upstream origin mentioned in a prompt", status: 500,
			body: `{"error":{"message":"Token refresh failed for https://api.anthropic.com. Please re-authenticate."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"see https://api.anthropic.com/v1/messages docs"}]}`, model: "m", want: Auth},

		// 7 MISREAD (mid-stream). An invalid_request_error event whose words
		// prove nothing now reads unknown (cools nothing, not counted). Relays
		// stamp their own upstream failures with that type ("Upstream request
		// failed", a sub2api-style relay's generic body; find_string id
		// 68604147412 / 59197672577); once a stream has begun the client cannot
		// be failed over, and an endpoint whose streams all break this way is
		// never cooled, so it stays first for everyone. Body INVENTED after
		// those relays' wording.
		{name: "a relay's generic upstream failure typed invalid_request_error mid-stream", status: 200, stream: true,
			body: "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"Upstream request failed\"}}\n\n",
			req:  `{"model":"m","messages":[{"role":"user","content":"hi"}],"stream":true}`, model: "m", want: ServerError},

		// 8 MISREAD (low). Cohere's "finetuned model … is not ready for serving"
		// covers a fine-tune still training (hours) or failed (never): as
		// server_error it is retried at once and cools only after
		// failure_threshold; nothing is served there, unavailable. Body REAL
		// (vocab27 "not ready for serving", Cohere).
		{name: "a fine-tune not ready for serving is nothing served", status: 400,
			body: `{"message":"finetuned model with name xyz is not ready for serving","id":"5f3c2a1e-0000-4000-8000-000000000000"}`,
			req:  `{"model":"xyz","messages":[]}`, model: "xyz", want: Unavailable},
	})
}
