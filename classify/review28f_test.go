package classify

import "testing"

// Review 28f: hostile review of 7e4b732's rules.

// TestReview28fVagueModelWordsYieldToANamedField: "Missing 'model' field"
// is vague (Detour writes the top-level model), and a vague phrase makes
// refine treat the answer as a capability gap, which drops the
// "openai:param" proof. A param naming the client's own sub-object
// (a tool's model) is a named field: docs/behaviour.md, "a bad-input code
// or a named field beside it still makes it bad_request". Before 7e4b732
// these were bad_request ("missing … field"); now they are unknown, and the
// client's bad tool is tried at every endpoint. The new phrase has no
// bareModel guard either, unlike its "model is required" siblings.
func TestReview28fVagueModelWordsYieldToANamedField(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":"draw"}],"tools":[{"type":"image_generation"}]}`
	runHostile(t, []hostileCase{
		{name: "a tool's model missing, named by param", status: 400,
			body: `{"error":{"message":"Missing 'model' field","type":"invalid_request_error","param":"tools[0].model"}}`,
			req:  req, model: "m", want: BadRequest},
		{name: "the tools member named by param", status: 400,
			body: `{"error":{"message":"Missing 'model' field","type":"invalid_request_error","param":"tools"}}`,
			req:  req, model: "m", want: BadRequest},
		// The top-level model stays unknown (the rule's own case).
		{name: "param model proves nothing", status: 400,
			body: `{"error":{"message":"Missing 'model' field","type":"invalid_request_error","param":"model"}}`,
			req:  req, model: "m", want: Unknown},
	})
}

// TestReview28fAuthHeaderInOpenAPICoreWords: openapi-core
// (python-openapi/openapi-core@21f62ce,
// openapi_core/validation/request/exceptions.py:78) words a missing header
// parameter "Missing required header parameter: <name>". The new vague
// "missing required header" matches it (a prefix), but the auth carve-out
// "required header: x-api-key" does not (the word "parameter" between):
// the credential Detour sends is read as unknown, so a dead key fails over
// on every request and is never cooled or paged.
func TestReview28fAuthHeaderInOpenAPICoreWords(t *testing.T) {
	chat := `{"model":"m","messages":[{"role":"user","content":"hi"}]}`
	runHostile(t, []hostileCase{
		{name: "openapi-core: missing x-api-key header parameter", status: 400,
			body: `{"detail":"Missing required header parameter: x-api-key"}`,
			req:  chat, model: "m", want: Auth},
		{name: "openapi-core: missing Authorization header parameter", status: 400,
			body: `{"error":{"message":"Missing required header parameter: Authorization"}}`,
			req:  chat, model: "m", want: Auth},
	})
}

// TestReview28fClientResourceHeaderIsNotTheAccount: "required header:
// authorization" is auth with no notClient guard, so a fetch of a URL the
// client sent, relayed with the fetched server's words, is read as
// Detour's key (the account cools for account_cooldown, the operator is
// paged). fiveXXPhrases guards its auth wordings with notClient for this
// (pick.go: "Failed to download file from https://…: 401 …"). Synthetic
// wording: no relay of this exact shape was found (the search budget was
// spent); the older "missing … authorization header" shares the gap.
func TestReview28fClientResourceHeaderIsNotTheAccount(t *testing.T) {
	req := `{"model":"m","messages":[{"role":"user","content":[{"type":"text","text":"summarise"},{"type":"file","file":{"file_url":"https://files.example.com/a.pdf"}}]}]}`
	runHostile(t, []hostileCase{
		{name: "a client URL's own header demand", status: 400,
			body: `{"error":{"message":"Failed to fetch https://files.example.com/a.pdf: 400 Missing required header: Authorization"}}`,
			req:  req, model: "m", notAny: []Class{Auth}},
	})
}
