package classify

import "testing"

// TestReviewRoundTwentySevenC: hostile review of the rules added since
// 9869978 (relay credential auth phrases, provider prefix, no model found
// for, account banned, disabled in this account, an error event's "NNN: "
// lead), read at main f18e344. Every case failed there and passed at 9869978
// (the probes' model renamed from "m" to a real name where the rule
// checks the text for it). REAL = wording or
// request shape from a public source (cited); INVENTED = mechanism only.
func TestReviewRoundTwentySevenC(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	// OpenAI's remote MCP tool as its guide first documented it: the
	// token under headers, "Authorization" capitalised (REQUEST SHAPE REAL:
	// platform.openai.com/docs/guides/tools-remote-mcp, "headers":
	// {"Authorization": "Bearer $STRIPE_API_KEY"}).
	mcpHeaders := `{"model":"m","input":"list my files","tools":[{"type":"mcp","server_label":"gdrive","server_url":"https://mcp.example.com/gdrive","headers":{"Authorization":"Bearer ya29.expired"},"require_approval":"never"}]}`
	runHostile(t, []hostileCase{
		// 1 STEERING -> auth (pages the operator, cools the provider account).
		// carriesCredential looks for a member "authorization" byte for byte;
		// a header map's "Authorization" is not seen, so the client's own
		// expired connector token, reported in the new relay wording, pages.
		// Body INVENTED (no "MCP server" in it, so connectorPhrases miss).
		// Passed at 9869978.
		{name: "client's MCP header token expired, 4xx", status: 400,
			body: `{"error":{"message":"Failed to refresh OAuth token for connector 'gdrive'. Please re-authenticate.","type":"invalid_request_error"}}`,
			req:  mcpHeaders, model: "m", notAny: []Class{Auth, Forbidden}},
		{name: "client's MCP header token expired, 5xx", status: 500,
			body: `{"error":{"message":"Failed to refresh OAuth token for connector 'gdrive'. Please re-authenticate."}}`,
			req:  mcpHeaders, model: "m", notAny: []Class{Auth, Forbidden}},

		// 2 STEERING -> auth. "account banned" is also the tail of a warning
		// ("may get your account banned") a moderation layer adds to a
		// refusal the client's prompt provoked. INVENTED. Passed at 9869978.
		{name: "a moderation warning that names a ban to come", status: 400,
			body: `{"error":{"message":"Your request was flagged by our content moderation system. Repeated violations may get your account banned.","type":"invalid_request_error"}}`,
			req:  chat, model: "m", notAny: []Class{Auth}},

		// 3 STEERING -> auth. "disabled in this account" without the
		// violation is a feature switched off (as b97aece dropped a
		// workspace's "is disabled": a feature off would page). The client
		// chose the tool. INVENTED wording in Google's form. Passed at 9869978.
		{name: "a tool disabled in this account", status: 403,
			body: `{"error":{"code":403,"message":"Grounding with Google Search is disabled in this account.","status":"PERMISSION_DENIED"}}`,
			req:  `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"googleSearch":{}}]}`, model: "gemini-2.5-pro", notAny: []Class{Auth}},

		// 4 STEERING -> unavailable (cools the endpoint for everyone).
		// "provider prefix" and "no model found for" carry no ourModel: said
		// of a model the client named in its own members, or of what the
		// request asks, they still read as Detour's model gone. Every real
		// source cited for them names the model Detour sent (vocab27:
		// inference.net, the 500 "Received: 'claude-sonnet-4-5'", Targon).
		// INVENTED. Passed at 9869978.
		{name: "a client's own model member needs a provider prefix", status: 400,
			body: `{"error":{"message":"Invalid embedding_model 'text-embedding-3-small': must include a provider prefix (e.g. 'openai/text-embedding-3-small')"}}`,
			req:  `{"model":"gpt-5","messages":[],"embedding_model":"text-embedding-3-small"}`, model: "gpt-5", notAny: []Class{Unavailable}},
		{name: "a tool's model needs a provider prefix, 5xx", status: 500,
			body: `{"error":{"message":"Model name must include a provider prefix. Received: 'dall-e-3'"}}`,
			req:  `{"model":"gpt-5","messages":[],"tools":[{"type":"image_generation","model":"dall-e-3"}]}`, model: "gpt-5", notAny: []Class{Unavailable}},
		{name: "no model found for what the request asks", status: 400,
			body: `{"error":{"message":"No model found for the requested features: tools, vision"}}`,
			req:  `{"model":"auto","messages":[],"tools":[{"type":"function","function":{"name":"f"}}]}`, model: "auto", notAny: []Class{Unavailable}},
		{name: "no model found for a tool's model, 5xx", status: 500,
			body: `{"error":{"message":"no model found for whisper-large-v3"}}`,
			req:  `{"model":"gpt-5","messages":[],"tools":[{"type":"transcribe","model":"whisper-large-v3"}]}`, model: "gpt-5", notAny: []Class{Unavailable}},

		// 5 STEERING -> auth. A URL the client sent that the upstream could
		// not fetch, in the new wording: the client's credential for its own
		// file, not the operator's. INVENTED. Passed at 9869978.
		{name: "the client's URL wants re-authentication", status: 400,
			body: `{"error":{"message":"Failed to download file from https://files.example.com/share/1abc: 401 Unauthorized. Please re-authenticate."}}`,
			req:  `{"model":"m","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://files.example.com/share/1abc"}}]}]}`, model: "m", notAny: []Class{Auth}},

		// 6 (left, noted): a tool's own "weekly rate limit" ("The web_search
		// tool has exceeded its weekly rate limit.", invented) still reads
		// quota, as "daily rate limit" does; no real answer says so yet.

		// 7 STEERING -> unknown (the endpoint's failure uncounted). Any echoed
		// "NNN: " lead now makes the event unknown, a 5xx lead too: a prompt
		// quoting Llama Stack's generic 500 (Starlette's HTTPException str,
		// "500: Internal server error: An unexpected error occurred." —
		// llama_stack server translate_exception, REAL format) keeps the
		// server's real failure from counting. Prompt INVENTED. Passed at 9869978.
		{name: "an echoed 5xx lead stays the server's", status: 200, stream: true,
			body: "data: {\"error\":{\"message\":\"500: Internal server error: An unexpected error occurred.\"}}\n\n",
			req:  `{"model":"m","input":"my server logs 500: Internal server error: An unexpected error occurred. why?","stream":true}`, model: "m", want: ServerError},
	})
}
