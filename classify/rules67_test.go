package classify

import "testing"

// Round 67's held-out hunt (67a): OpenCode Go refuses, from September
// 2026, every caller that sends no x-opencode-session header, with the
// type MissingSessionID that its free tier gives a client that is not
// OpenCode. Nothing in the request is wrong and no retry of it here will
// serve: the endpoint's policy on who may call it (forbidden, cools the
// endpoint and moves on), as the corpus's free-tier twin at 400 reads.
func TestRoundSixtySevenMissingSessionIsTheEndpointsPolicy(t *testing.T) {
	body := corpusBody(t, "opencode-go-400-missingsessionid-request-missing-x-opencode-session")
	want56(t, "OpenCode Go's missing session", classify56(400, body, "", false), Forbidden, "type:missingsessionid")
	// Its words alone, without the type, name no policy: unknown.
	words := `{"error":{"message":"Request is missing x-opencode-session and cannot be routed efficiently."}}`
	want56(t, "the words alone", classify56(400, words, "", false), Unknown, "")
}

// Hunt 67b: GitHub Copilot refuses an image request without its own
// Copilot-Vision-Request header. The headers an upstream gets are Detour's
// (an operator's provider `headers`; a client's reach no further than
// anthropic-beta and anthropic-version), so a header the endpoint wants is
// this endpoint's gap, as "Missing required header: X" already reads
// (unknown: the walk moves on to a target that serves the image, nothing
// cools, and the Unknowns show the operator what to add), not the
// client's bad input, which stopped the request with a 400 the client
// cannot mend.
func TestRoundSixtySevenAHeaderTheEndpointRequires(t *testing.T) {
	body := corpusBody(t, "github-copilot-400-missing-copilot-vision-request-header")
	want56(t, "Copilot's vision header", classify56(400, body, "", false), Unknown, "")
	msg := func(m string) string { return `{"error":{"message":"` + m + `"}}` }
	want56(t, "a named header", classify56(400, msg(`Missing required X-Title header`), "", false), Unknown, "")
	// A credential's header stays the account's.
	if v := classify56(401, msg(`missing required x-api-key header`), "", false); v.Class != Auth {
		t.Fatalf("a key's header at a 401: %+v", v)
	}
	// Not a header: a member of the request is still the client's.
	want56(t, "a member", classify56(400, msg(`missing required field messages in the request body`), "", false), BadRequest, "")
	want56(t, "a parameter", classify56(400, msg(`Missing required parameter: 'input'.`), "", false), BadRequest, "")
}

// Claude from 4.6 refuses a prefill: "This model does not support
// assistant message prefill. The conversation must end with a user
// message." The model's gap (unknown), as the corpus reads Mistral's,
// DeepSeek's and llama.cpp's prefill refusals: Claude before 4.6, OpenAI
// and Gemini take the same conversation. Its second sentence read it as
// the client's order (bad_request), and the walk stopped.
func TestRoundSixtySevenPrefillRefusalIsTheModelsGap(t *testing.T) {
	body := corpusBody(t, "anthropic-assistant-prefill-not-supported")
	want56(t, "Claude 4.6's prefill refusal", classify56(400, body, "", false), Unknown, "phrase:does not support…prefill")
	// The order itself stays the client's.
	want56(t, "the order", classify56(400, `{"type":"error","error":{"type":"invalid_request_error","message":"The conversation must end with a user message."}}`, "", false), BadRequest, "")
	echo56(t, 400, "this model does not support assistant message prefill", `{"type":"error","error":{"type":"invalid_request_error","message":"messages.1: The conversation must end with a user message. You wrote: this model does not support assistant message prefill"}}`, BadRequest)
}
