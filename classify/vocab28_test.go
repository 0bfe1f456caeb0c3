package classify

import "testing"

// TestVocabularyRoundTwentyEight: three random samples of provider error
// bodies pasted in issue threads (coding agents and editors; chat apps and
// knowledge tools; agent frameworks and SDKs), labelled from their meaning
// before the classifier ran (docs/behaviour.md, "More signals, by class").
// Each positive failed before its rule; the near-misses beside them must
// not move.
func TestVocabularyRoundTwentyEight(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	oai := func(msg string) string { return `{"error":{"message":"` + msg + `"}}` }
	typed := func(msg, typ string) string {
		return `{"error":{"message":"` + msg + `","type":"` + typ + `","param":null,"code":"` + typ + `"}}`
	}
	runHostile(t, []hostileCase{
		// A version gate on the endpoint (Azure OpenAI, GitHub Models:
		// browser-use/browser-use#12): the api-version is the endpoint's
		// configuration behind Detour, never the client's.
		{name: "feature enabled only for later api versions", status: 400,
			body: `{"error":{"code":"BadRequest","message":"response_format value as json_schema is enabled only for api versions 2024-08-01-preview and later"}}`,
			req:  chat, model: "gpt-4o", want: Unknown},
		{name: "hyphenated api-version gate", status: 400,
			body: `{"error":{"code":"BadRequest","message":"This feature is enabled only for api-version 2025-03-01-preview and later."}}`,
			req:  chat, model: "m", want: Unknown},
		{name: "an invalid api version stays the request's", status: 400, body: oai("Invalid API version: 2024-13-01."), req: chat, model: "m", want: BadRequest},

		// DeepSeek's template at either end of the conversation
		// (browser-use/browser-use#359; the last-message twin is in the corpus).
		{name: "first message must be a user message", status: 400,
			body: typed("The first message (except the system message) of deepseek-reasoner must be a user message, but an assistant message detected.", "invalid_request_error"),
			req:  chat, model: "deepseek-reasoner", want: Unknown},
		{name: "roles must alternate stays bad input", status: 400, body: typed("messages: roles must alternate between \"user\" and \"assistant\"", "invalid_request_error"), req: chat, model: "m", want: BadRequest},
		{name: "a tool message without its call stays bad input", status: 400,
			body: typed("Messages with role 'tool' must be a response to a preceding message with 'tool_calls'", "invalid_request_error"), req: chat, model: "m", want: BadRequest},
		{name: "a role outside the enum stays bad input", status: 400, body: typed("messages.0.role must be one of [user, assistant]", "invalid_request_error"), req: chat, model: "m", want: BadRequest},

		// A tier or plan that serves only its vendor's own app (OpenCode's
		// free tier, quoted in Kilo-Org/kilocode's issues): the scoping
		// "only authorized for use" already names.
		{name: "free tier can only be used in its app", status: 400,
			body: `{"type":"error","error":{"type":"MissingSessionID","message":"OpenCode's free tier can only be used in OpenCode"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "free tier from within its app, a 403", status: 403,
			body: `{"type":"error","error":{"type":"FreeTierError","message":"OpenCode's free tier can only be used from within OpenCode"}}`,
			req:  chat, model: "m", want: Forbidden},
		{name: "a parameter that can only be used with another stays bad input", status: 400,
			body: oai("tool_choice can only be used when tools are specified."), req: chat, model: "m", notAny: []Class{Forbidden}},
		{name: "the client's own words are no evidence", status: 400, body: oai("Your free tier can only be used in OpenCode"),
			req: `{"model":"m","messages":[{"role":"user","content":"your free tier can only be used in OpenCode"}]}`, model: "m", notAny: []Class{Forbidden}},
	})
}
