package classify

import (
	"net/http"
	"testing"
	"time"
)

// dialectCase is a hostileCase answered in a dialect (the target's, as
// dispatch passes it): a rule that reads the dialect is tested in each.
type dialectCase struct {
	name    string
	dialect Dialect
	status  int
	body    string
	want    Class
}

func runDialect(t *testing.T, cases []dialectCase) {
	t.Helper()
	req := []byte(`{"model":"m","max_tokens":1024,"messages":[{"role":"user","content":"hi"},{"role":"system","content":"be brief"},{"role":"user","content":"go on"}]}`)
	for _, c := range cases {
		v := Classify(Response{Status: c.status, Body: []byte(c.body), Dialect: c.dialect, Request: req, Model: "m"})
		if !v.Failed || v.Class != c.want {
			t.Errorf("%s (%s): got failed=%v %s (%s), want %s", c.name, c.dialect, v.Failed, v.Class, v.Evidence, c.want)
		}
	}
}

// TestVocabularyRoundFortyGateways: hunt 40a (AI gateways as upstreams),
// labelled before the classifier ran (corpus README, "Vocabulary round
// forty"). A user relies on a burst of concurrent requests at OpenRouter
// cooling the endpoint for the wait it names, not the whole account with
// the operator paged; on one request too costly for the budget moving on
// without cooling the account; on a gateway whose own credential or stored
// key is broken being the operator's (cooled, paged) even as a 400; and on
// a gateway that routes the model nowhere cooling that endpoint. The
// positives failed before their rules; the near-misses must not move.
func TestVocabularyRoundFortyGateways(t *testing.T) {
	chat := `{"model":"m","max_tokens":1024,"messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		// OpenRouter's docs (api_reference/limits, "In-flight spending
		// budget"), the example body verbatim.
		{name: "OpenRouter 402 in_flight_budget_exhausted", status: 402,
			body: "{\n  \"error\": {\n    \"code\": 402,\n    \"message\": \"This request would exceed your available credits given your current in-flight requests. Retry after in-flight requests settle, or add credits.\",\n    \"metadata\": {\n      \"reason\": \"in_flight_budget_exhausted\",\n      \"limit_source\": \"openrouter_in_flight_budget\",\n      \"remedy_hint\": \"Retry after your in-flight requests settle (see the Retry-After header). Adding credits at https://openrouter.ai/settings/credits raises your in-flight budget, up to a capped ceiling.\"\n    }\n  }\n}",
			req:  chat, model: "m", want: RateLimited},
		// A test fixture's body "seen in production" (hunt 40a, #15).
		{name: "OpenRouter 402 weight_exceeds_budget", status: 402,
			body: `{"error":{"message":"This request's maximum cost exceeds your available credits. Add credits, or lower max_tokens or prompt size.","code":402,"metadata":{"reason":"weight_exceeds_budget","limit_source":"openrouter_credits"}}}`,
			req:  chat, model: "m", want: Overflow},
		// Each reason alone, and the words alone (constructed from them).
		{name: "the in-flight reason alone", status: 402,
			body: `{"error":{"message":"Payment required.","code":402,"metadata":{"reason":"in_flight_budget_exhausted"}}}`,
			req:  chat, model: "m", want: RateLimited},
		{name: "the weight reason alone", status: 402,
			body: `{"error":{"message":"Payment required.","code":402,"metadata":{"reason":"weight_exceeds_budget"}}}`,
			req:  chat, model: "m", want: Overflow},
		{name: "the in-flight words alone", status: 402,
			body: `{"error":{"message":"This request would exceed your available credits given your current in-flight requests.","code":402}}`,
			req:  chat, model: "m", want: RateLimited},
		// Cloudflare AI Gateway's captured 2040 and 2009 (a transport's
		// tests, "captured against the real gateway"), both as 400s.
		{name: "Cloudflare AI Gateway 2040 no BYOK credential", status: 400,
			body: `{"success":false,"result":[],"messages":[],"error":[{"code":2040,"message":"Provider 'google-ai-studio' has no BYOK credential named 'example-studio'. Configured aliases: 'other-studio'"}],"name":"AiGatewayError","httpCode":400,"internalCode":2040,"message":"Provider 'google-ai-studio' has no BYOK credential named 'example-studio'. Configured aliases: 'other-studio'"}`,
			req:  chat, model: "m", want: Auth},
		{name: "Cloudflare AI Gateway 2009 Unauthorized", status: 400,
			body: `{"success":false,"error":[{"code":2009,"message":"Unauthorized"}],"name":"AiGatewayError","httpCode":400,"internalCode":2009,"message":"Unauthorized"}`,
			req:  chat, model: "m", want: Auth},
		// The bare word as relays pass it on (constructed: a label before
		// it, a request id after it, a line break).
		{name: "Unauthorized behind a relay's label", status: 400,
			body: `{"error":{"message":"litellm.APIError: Unauthorized"}}`, req: chat, model: "m", want: Auth},
		{name: "Unauthorized with one-api's request id", status: 400,
			body: `{"error":{"message":"unauthorized (request id: 2025010112000012345678)"}}`, req: chat, model: "m", want: Auth},
		{name: "Unauthorized and a line break", status: 422,
			body: `{"error":{"message":"Unauthorized\n"}}`, req: chat, model: "m", want: Auth},
		// Helicone's plain-text 400 (the literal its gateway returned
		// before PR #4879), and the same sentence in a JSON envelope.
		{name: "Helicone no available providers for the requested models", status: 400,
			body: "No available providers for the requested models. Check provider names and see supported models at https://helicone.ai/models",
			req:  chat, model: "m", want: Unavailable},
		{name: "Helicone's sentence in an envelope", status: 400,
			body: `{"error":{"message":"No available providers for the requested models. Check provider names and see supported models at https://helicone.ai/models"}}`,
			req:  chat, model: "m", want: Unavailable},

		// Near-misses from the corpus: an empty balance stays quota, even
		// where its hint says to lower max_tokens; an affordable count stays
		// overflow; a relay's own key stays server_error.
		{name: "OpenRouter insufficient credits with a lower-max_tokens hint", status: 402,
			body: `{"error":{"message":"Insufficient credits. Add more using https://openrouter.ai/settings/credits","code":402,"metadata":{"limit_source":"openrouter_credits","remedy_hint":"Add credits at https://openrouter.ai/settings/credits, or lower max_tokens / prompt size to fit your remaining balance."}}}`,
			req:  chat, model: "m", want: Quota},
		{name: "OpenRouter never purchased credits", status: 402,
			body: `{"error":{"message":"Insufficient credits. This account never purchased credits. Make sure your key is on the correct account or org, and if so, purchase more at https://openrouter.ai/settings/credits","code":402}}`,
			req:  chat, model: "m", want: Quota},
		{name: "OpenRouter can only afford 10114", status: 402,
			body: `{"error":{"message":"This request requires more credits, or fewer max_tokens. You requested up to 65536 tokens, but can only afford 10114. To increase, visit https://openrouter.ai/settings/credits and upgrade to a paid account","code":402,"metadata":{"provider_name":null}},"user_id":"user_"}`,
			req:  chat, model: "m", want: Overflow},
		{name: "OpenRouter relaying its own DeepSeek key's balance", status: 402,
			body: `{"error":{"message":"Provider returned error","code":402,"metadata":{"raw":"{\"error\":{\"message\":\"Insufficient Balance\",\"type\":\"unknown_error\",\"param\":null,\"code\":\"invalid_request_error\"}}","provider_name":"DeepSeek","is_byok":false}},"user_id":"user_2tDvfUkvnoIfWZAr7gBcidgH8cj"}`,
			req:  chat, model: "m", want: ServerError},
		// Near-misses (constructed): "Unauthorized" in a sentence, or at a
		// status that says more, or the client's own word quoted back, is
		// not the operator's credential; a BYOK the client's own words name
		// is not either.
		{name: "Unauthorized inside a sentence", status: 400,
			body: `{"error":{"message":"The tool server answered Unauthorized for the call get_weather"}}`,
			req:  chat, model: "m", notAny: []Class{Auth}},
		{name: "a fetched URL's 401 Unauthorized", status: 400,
			body: `{"error":{"message":"Failed to download https://files.example.com/a.pdf: 401 Unauthorized"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"file","file":{"file_url":"https://files.example.com/a.pdf"}}]}]}`, model: "m", notAny: []Class{Auth}},
		{name: "a bare Unauthorized at a 403 stays forbidden", status: 403,
			body: `{"error":{"message":"Unauthorized"}}`, req: chat, model: "m", want: Forbidden},
		{name: "the client's own Unauthorized quoted back", status: 400,
			body: `{"error":{"message":"Unauthorized"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"Unauthorized"}]}`, model: "m", notAny: []Class{Auth}},
		{name: "the client's own BYOK words quoted back", status: 400,
			body: `{"error":{"message":"Invalid value: 'no BYOK credential'"}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":"no BYOK credential"}]}`, model: "m", notAny: []Class{Auth}},
		{name: "no provider available that supports tool calling stays a gap", status: 400,
			body: `{"error":{"message":"No provider available that supports tool calling for the requested model"}}`,
			req:  `{"model":"gpt-5","messages":[],"tools":[{"type":"function","function":{"name":"f"}}]}`, model: "gpt-5", notAny: []Class{Unavailable}},
		{name: "no available providers that support a feature stays a gap", status: 400,
			body: `{"error":{"message":"No available providers for the requested models that support tool calling."}}`,
			req:  chat, model: "m", notAny: []Class{Unavailable}},
	})
}

// TestVocabularyRoundFortyInFlightWait: a user relies on OpenRouter's
// in-flight budget cooling the endpoint for the Retry-After it sends, and
// on a wait of an hour or more still reading as a spent allowance.
func TestVocabularyRoundFortyInFlightWait(t *testing.T) {
	body := []byte(`{"error":{"code":402,"message":"This request would exceed your available credits given your current in-flight requests. Retry after in-flight requests settle, or add credits.","metadata":{"reason":"in_flight_budget_exhausted"}}}`)
	v := Classify(Response{Status: 402, Header: http.Header{"Retry-After": {"3"}}, Body: body})
	if v.Class != RateLimited || v.RetryAfter != 3*time.Second {
		t.Errorf("Retry-After 3: got %s (%s), retry after %s; want rate_limited, 3s", v.Class, v.Evidence, v.RetryAfter)
	}
	if v := Classify(Response{Status: 402, Header: http.Header{"Retry-After": {"7200"}}, Body: body}); v.Class != Quota {
		t.Errorf("Retry-After 7200: got %s (%s); want quota", v.Class, v.Evidence)
	}
}

// TestVocabularyRoundFortyNewAPIs: hunt 40b (the Responses and Messages
// APIs from servers other than their vendors'). A user of Claude Code
// relies on a request Anthropic serves (a message of role system inside
// messages) walking on past a Messages server that refuses it, not ending
// as the client's bad input; a Codex user on a tool type one server lacks
// walking on too; a request with more tools than one vendor takes walking
// on; and a turn order error stopping the walk.
func TestVocabularyRoundFortyNewAPIs(t *testing.T) {
	vllmSystem := `{
  "error": {
    "message": "1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 1, 'role'), 'msg': \"Input should be 'user' or 'assistant'\", 'input': 'system', 'ctx': {'expected': \"'user' or 'assistant'\"}}",
    "type": "Bad Request",
    "param": null,
    "code": 400
  }
}`
	minimax := `{"error":{"message":"invalid params, chat content has invalid message role: system (2013)","type":"bad_request_error","param":"","code":null}}`
	runDialect(t, []dialectCase{
		// vllm-project/vllm#44000 and zai-org/GLM-5#74 (hunt 40b), and the
		// corpus's older DeepSeek and MiniMax answers, relabelled.
		{name: "vLLM /v1/messages role system", dialect: Anthropic, status: 400, body: vllmSystem, want: Unknown},
		{name: "Z.ai 422 role system", dialect: Anthropic, status: 422,
			body: `{"detail":[{"type":"literal_error","loc":["body","messages",1,"role"],"msg":"Input should be 'user' or 'assistant'","input":"system","ctx":{"expected":"'user' or 'assistant'"}}]}`, want: Unknown},
		{name: "DeepSeek unknown variant system", dialect: Anthropic, status: 400,
			body: "{\"error\":{\"message\":\"Failed to deserialize the JSON body into the target type: messages[0].role: unknown variant `system`, expected `user` or `assistant` at line 1 column 29\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request_error\"}}", want: Unknown},
		{name: "MiniMax invalid message role system", dialect: Anthropic, status: 400,
			body: `{"type":"error","error":{"type":"bad_request_error","message":"invalid params, chat content has invalid message role: system (2013)","http_code":"400"},"request_id":"0660b098aa1e9dd5a6773a48c479fc89"}`, want: Unknown},
		{name: "MiniMax's OpenAI-shaped form, Anthropic dialect", dialect: Anthropic, status: 400, body: minimax, want: Unknown},

		// Near-misses: the same refusals in the OpenAI dialect; a role no
		// Messages server takes (constructed from vLLM's body); a role
		// whose rejected value is another, with system only among the
		// expected (the corpus's DeepSeek developer answer); a masked path
		// (the corpus's Ark answer through new-api); a system message's
		// content, not its role (the corpus's Groq answer).
		{name: "vLLM role system, OpenAI dialect", dialect: OpenAI, status: 400, body: vllmSystem, want: BadRequest},
		{name: "MiniMax role system, OpenAI dialect", dialect: OpenAI, status: 400, body: minimax, want: BadRequest},
		{name: "vLLM role tool, Anthropic dialect", dialect: Anthropic, status: 400,
			body: `{"error":{"message":"1 validation error:\n  {'type': 'literal_error', 'loc': ('body', 'messages', 1, 'role'), 'msg': \"Input should be 'user' or 'assistant'\", 'input': 'tool', 'ctx': {'expected': \"'user' or 'assistant'\"}}","type":"Bad Request","param":null,"code":400}}`, want: BadRequest},
		{name: "DeepSeek unknown variant developer, system expected", dialect: Anthropic, status: 400,
			body: "{\"error\":{\"message\":\"Failed to deserialize the JSON body into the target type: messages[1].role: unknown variant `developer`, expected one of `system`, `user`, `assistant`, `tool`, `latest_reminder` at line 1 column 51036\",\"type\":\"invalid_request_error\",\"param\":null,\"code\":\"invalid_request_error\"}}", want: BadRequest},
		{name: "Ark's masked role path", dialect: Anthropic, status: 400,
			body: "{\"error\":{\"type\":\"InvalidParameter\",\"message\":\"The parameter `***.role` specified in the request are not valid: invalid value: `system`, supported values are: `assistant`, `user`. Request id: 021763978070916513ce85330429ea14b25f1ce17f48ff98e2241 (request id: 20251124175430896222489S9lzNJEr)\"},\"type\":\"error\"}", want: BadRequest},
		{name: "a system message's content", dialect: Anthropic, status: 400,
			body: `{"error":{"message":"'messages.0' : for 'role:system' the following must be satisfied[('messages.0.content' : value must be a string)]","type":"invalid_request_error"}}`, want: BadRequest},
	})

	codex := `{"model":"m","input":"hi","tools":[{"type":"function","name":"f"},{"type":"web_search"}]}`
	runHostile(t, []hostileCase{
		// lmstudio-ai/lmstudio-bug-tracker#1383 (LM Studio's server log).
		{name: "LM Studio invalid discriminator at tools.6.type", status: 400,
			body: "{\n  \"error\": {\n    \"message\": \"Invalid discriminator value. Expected 'function' | 'mcp'\",\n    \"type\": \"invalid_request_error\",\n    \"param\": \"tools.6.type\",\n    \"code\": \"invalid_union_discriminator\"\n  }\n}",
			req:  codex, model: "m", want: Unknown},
		{name: "the path opening the message, bracketed", status: 400,
			body: `{"error":{"message":"tools[1].type: Invalid discriminator value. Expected 'function' | 'mcp'","type":"invalid_request_error"}}`,
			req:  codex, model: "m", want: Unknown},
		// MoonshotAI/Kimi-K2#90 and MiniMax-AI/MiniMax-M2#43.
		{name: "Kimi a max of 128 tools", status: 400,
			body: `{"error":{"type":"invalid_request_error","message":"a max of 128 tools can be supported"},"type":"error"}`,
			req:  codex, model: "m", want: Overflow},
		{name: "MiniMax tool call result does not follow tool call", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"invalid params, tool call result does not follow tool call (2013)"},"request_id":"0564d137bdf3bd1fb76dd9f0c98beb85"}`,
			req:  codex, model: "m", want: BadRequest},

		// Near-misses: the same discriminator at a message's role or inside
		// a function tool's schema is the client's input (constructed); the
		// xAI precedent stays a gap (vocab31); a tool cap counted at a 429
		// is a throttle's, a count of cache blocks and a tool-call cap stay
		// bad input; the DeepSeek user_id pattern stays bad_request (kept
		// as a marked miss: only a rule for one member would move it).
		{name: "discriminator at messages.1.role", status: 400,
			body: `{"error":{"message":"Invalid discriminator value. Expected 'user' | 'assistant'","type":"invalid_request_error","param":"messages.1.role","code":"invalid_union_discriminator"}}`,
			req:  codex, model: "m", want: BadRequest},
		{name: "discriminator inside a function tool's schema", status: 400,
			body: `{"error":{"message":"Invalid discriminator value. Expected 'object' | 'string'","type":"invalid_request_error","param":"tools.0.function.parameters.type","code":"invalid_union_discriminator"}}`,
			req:  codex, model: "m", want: BadRequest},
		{name: "xAI unknown variant x_search", status: 400,
			body: "{\"error\":\"Failed to deserialize the JSON body into the target type: tools[55].type: unknown variant `x_search`, expected `function` or `live_search` at line 1 column 221749\"}",
			req:  codex, model: "m", want: Unknown},
		{name: "a max of 128 tools at a 429", status: 429,
			body: `{"error":{"type":"rate_limit_error","message":"a max of 128 tools can be supported per minute"}}`,
			req:  codex, model: "m", want: RateLimited},
		{name: "a maximum of 4 cache_control blocks", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"A maximum of 4 blocks with cache_control may be provided. Found 5."}}`,
			req:  codex, model: "m", want: BadRequest},
		{name: "max_tool_calls at most", status: 400,
			body: `{"error":{"message":"max_tool_calls must be at most 10","type":"invalid_request_error","param":"max_tool_calls"}}`,
			req:  codex, model: "m", want: BadRequest},
		{name: "Anthropic tool_use without tool_result", status: 400,
			body: `{"type":"error","error":{"type":"invalid_request_error","message":"messages.2: ` + "`tool_use`" + ` ids were found without ` + "`tool_result`" + ` blocks immediately after: toolu_01. Each ` + "`tool_use`" + ` block must have a corresponding ` + "`tool_result`" + ` block in the next message."}}`,
			req:  codex, model: "m", want: BadRequest},
		{name: "DeepSeek user_id pattern", status: 400,
			body: `{"error":{"message":"Invalid 'user_id': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.","type":"invalid_request_error","param":null,"code":"invalid_request_error"}}`,
			req:  `{"metadata": {"user_id": "{\"device_id\":\"ea10\",\"account_uuid\":\"\",\"session_id\":\"db60\"}"}}`, model: "m", want: BadRequest},
	})
}

// TestVocabularyRoundFortyResetAfter: hunt 40c. A user relies on a relay
// whose accounts are spent for days being a spent allowance (its account
// cooled, the operator paged), not a throttle retried every few seconds;
// and on the same words with a short reset staying a throttle that waits
// as long as it says.
func TestVocabularyRoundFortyResetAfter(t *testing.T) {
	chat := []byte(`{"model":"m","messages":[{"role":"user","content":"hi"}]}`)
	for _, c := range []struct {
		name, body string
		req        []byte
		want       Class
		wait       time.Duration
	}{
		// diegosouzapw/OmniRoute#11859, the message in OmniRoute's envelope.
		{"OmniRoute reset after 140h 21m 10s", `{"error":{"message":"[kiro/claude-sonnet-4.5] All kiro accounts have exhausted their quota (reset after 140h 21m 10s)"}}`, chat, Quota, 0},
		// The same body with the reset shortened (OmniRoute sends "(reset
		// after 5m)" for a pool whose earliest reset is near).
		{"OmniRoute reset after 5m", `{"error":{"message":"[kiro/claude-sonnet-4.5] All kiro accounts have exhausted their quota (reset after 5m)"}}`, chat, RateLimited, 5 * time.Minute},
		{"reset after 45m 30s, groups one blank apart", `{"error":{"message":"[kiro/claude-sonnet-4.5] All kiro accounts have exhausted their quota (reset after 45m 30s)"}}`, chat, RateLimited, 45*time.Minute + 30*time.Second},
		// Code Assist's words relayed without Google's details (the
		// corpus's gemini-code-assist-quota-exhausted-reset-after-2h-429,
		// its message alone).
		{"Code Assist's reset after 2h1m1s, relayed bare", `{"error":{"message":"You have exhausted your capacity on this model. Your quota will reset after 2h1m1s."}}`, chat, Quota, 0},
		// The client's own words quoted back are no hint.
		{"the client's reset after 140h", `{"error":{"message":"Too many requests: the note says reset after 140h"}}`,
			[]byte(`{"model":"m","messages":[{"role":"user","content":"the note says reset after 140h"}]}`), RateLimited, 0},
		// A Go duration's groups are read whole after "try again in" too;
		// a number that no unit follows ends it.
		{"try again in 1m 30s", `{"error":{"message":"Rate limit reached. Please try again in 1m 30s."}}`, chat, RateLimited, 90 * time.Second},
		{"try again in 20s 3 times", `{"error":{"message":"Rate limit reached. Please try again in 20s 3 times at most."}}`, chat, RateLimited, 20 * time.Second},
	} {
		v := Classify(Response{Status: 429, Body: []byte(c.body), Request: c.req})
		if v.Class != c.want || c.wait > 0 && v.RetryAfter != c.wait {
			t.Errorf("%s: got %s (%s), retry after %s; want %s, %s", c.name, v.Class, v.Evidence, v.RetryAfter, c.want, c.wait)
		}
	}
}
