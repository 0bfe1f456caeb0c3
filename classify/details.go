package classify

// Anthropic's error codes (docs/behaviour.md, "Classes"). Beside its error
// type, an Anthropic error may name its cause in error.details.error_code
// ({"type":"error","error":{"type":"not_found_error","message":…,
// "details":{"error_code":"thread_not_found"}}}); its SDKs read it to
// raise a typed error (@anthropic-ai/sdk 1.14 core/error-classes.js, each
// class documented in resources/messages/messages.d.ts and
// resources/shared.d.ts) and to recover a lost server-side thread
// (anthropic-sdk-go 2.17 betamessagethread.go). The code settles what the
// status cannot: a 404 about the client's thread is no gone model, a 429
// about a month's spend is no throttle. Codes the status already places
// (ramp_limit_exceeded at a 429, compaction_unavailable at a 529), codes
// of endpoints Detour does not serve, and claude_code_version_too_old (the
// model is gated on the caller's Claude Code version: another route or
// vendor serves the request, so unknown, as its words read; corpus
// sub2api-400-anthropic-claude-code-version-too-old-…) are left out.

func init() {
	clients := strongCode(BadRequest)
	codeTables[srcDetail] = map[string]codeRule{
		// The client's server-side thread (thread: {"type":"continue",
		// "previous_message_id":…}): gone or expired, continued twice,
		// continued while another continue runs, a field changed across
		// turns, combined with what threads do not support. The client
		// replays its conversation; nothing of the provider's is wrong,
		// and another target knows no thread.
		"thread_not_found": clients, "thread_already_continued": clients, "thread_continue_in_flight": clients,
		"thread_fingerprint_mismatch": clients, "thread_unsupported_request": clients,
		// The client's compaction blocks and tool definitions.
		"compaction_block_ambiguous": clients, "compaction_block_misplaced": clients,
		"compaction_content_mismatch": clients, "compaction_incomplete_turn": clients,
		"compaction_nothing_to_summarize": clients, "compaction_signature_invalid": clients,
		"compaction_too_many_tool_references": clients, "compaction_tool_changes_mismatch": clients,
		"tool_name_conflict": clients, "tool_reference_unresolved": clients,
		// Money: a tier's monthly cap, a contract's, a linked
		// organization's limit or billing (as 429 and 402).
		"enforced_spend_limit_reached": strongCode(Quota), "contract_spend_limit_reached": strongCode(Quota),
		"linked_organization_spend_limit_reached": strongCode(Quota), "linked_organization_billing_unavailable": strongCode(Quota),
		// The key cannot work: its creator left the Claude Code workspace,
		// the organization is disabled (trust and safety), even as a 400.
		"claude_code_key_creator_not_member": strongCode(Auth), "organization_on_hold": strongCode(Auth),
		// The workspace's customer-managed encryption key is disabled or
		// its network blocked: every request of the account, until its
		// owner acts.
		"cmek_key_disabled": strongCode(Forbidden), "cmek_key_network_blocked": strongCode(Forbidden),
	}
	evidenceOf(srcDetail)
}

// evidenceOf precomputes the evidence of each code of src's table, for a
// table registered after codes.go's init.
func evidenceOf(src codeSource) {
	ev := make(map[string]string, len(codeTables[src]))
	for k := range codeTables[src] {
		ev[k] = sourcePrefix[src] + k
	}
	codeEvidence[src] = ev
}
