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
