package classify

import "testing"

// Review 62c: Anthropic names an error's cause in error.details.error_code
// (its SDKs' typed errors read it). A 404 about the client's expired
// server-side thread read unavailable and cooled the Claude endpoint for a
// day for everyone; a 400 about a thread continued twice read unknown and
// failed over to targets that know no thread.
func TestAnthropicDetailCodes(t *testing.T) {
	env := func(typ, code string) string {
		return `{"type":"error","error":{"type":"` + typ + `","message":"rejected","details":{"error_code":"` + code + `"}}}`
	}
	for _, c := range []struct {
		status    int
		typ, code string
		want      Class
	}{
		{404, "not_found_error", "thread_not_found", BadRequest},
		{404, "invalid_request_error", "thread_not_found", BadRequest},
		{400, "invalid_request_error", "thread_already_continued", BadRequest},
		{400, "invalid_request_error", "thread_continue_in_flight", BadRequest},
		{400, "invalid_request_error", "thread_fingerprint_mismatch", BadRequest},
		{400, "invalid_request_error", "thread_unsupported_request", BadRequest},
		{400, "invalid_request_error", "compaction_signature_invalid", BadRequest},
		{400, "invalid_request_error", "tool_name_conflict", BadRequest},
		{429, "rate_limit_error", "enforced_spend_limit_reached", Quota},
		{429, "rate_limit_error", "contract_spend_limit_reached", Quota},
		{402, "billing_error", "linked_organization_spend_limit_reached", Quota},
		{400, "invalid_request_error", "organization_on_hold", Auth},
		{400, "invalid_request_error", "claude_code_key_creator_not_member", Auth},
		{400, "invalid_request_error", "cmek_key_disabled", Forbidden},
		// Codes the status already places, or that say another route may
		// serve: the status and words decide, as before.
		{429, "rate_limit_error", "ramp_limit_exceeded", RateLimited},
		{404, "not_found_error", "some_future_code", Unavailable},
	} {
		want56(t, c.code, classify56(c.status, env(c.typ, c.code), "", false), c.want, "")
	}
	// Only error.details.error_code: the same member elsewhere, or deeper,
	// names nothing (a deeper value may be the client's JSON quoted back).
	for _, body := range []string{
		`{"type":"error","error":{"type":"not_found_error","message":"rejected","error_code":"thread_not_found"}}`,
		`{"type":"error","error":{"type":"not_found_error","message":"rejected","details":{"input":{"error_code":"thread_not_found"}}}}`,
		`{"type":"error","error":{"type":"not_found_error","message":"rejected"},"details":{"error_code":"thread_not_found"}}`,
	} {
		want56(t, body, classify56(404, body, "", false), Unavailable, "")
	}
}
