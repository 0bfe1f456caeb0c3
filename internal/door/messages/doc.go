// Package messages is the door for Anthropic's Messages API
// (POST /v1/messages): pure translation between the Messages wire shapes
// and the canonical OpenAI Chat Completions shapes every upstream adapter
// takes (internal/provider/chat), plus Anthropic's error envelope. It does
// no HTTP and knows nothing of dispatch; the server wires it.
//
//   - Translate: a Messages request → canonical chat JSON, with the model
//     and stream flag. Errors are *Error, naming the field as Anthropic does.
//   - Check: what makes a body not a Messages request at all (a required
//     member missing or of the wrong type), for a body that goes to an
//     Anthropic target untranslated; it reads nothing else.
//   - Answer: a canonical chat.completion → an Anthropic Message.
//   - Encoder: canonical chat.completion.chunk objects, one at a time → the
//     Messages SSE stream (message_start … message_stop, error frames).
//   - Envelope, ErrorType, Status, TypeForStatus: errors in Anthropic's
//     envelope with the statuses Anthropic uses.
//   - Estimate: count_tokens for targets that are not Anthropic (bytes/4).
//
// What Translate does with each request member (docs/doors.md has the same
// table for operators; "refused" is an *Error with Unsupported set, which a
// route to an Anthropic target can still serve as sent: native passthrough,
// provider.Request.WithModel):
//
//	model                      kept (the route or target name)
//	max_tokens                 kept as max_completion_tokens (the OpenAI
//	                           adapter may rename it max_tokens); required, ≥ 1;
//	                           above MaxOutputTokens left out (clients.go)
//	messages                   kept; roles user and assistant, and system
//	                           (a mid-conversation system message, in place)
//	  a last assistant turn
//	  with text                kept as the last assistant message (Claude
//	                           writes on from it; other vendors answer a
//	                           new turn: docs/doors.md)
//	  text blocks              kept (citations, cache_control dropped)
//	  image (base64, url)      kept as image_url (base64 as a data: URL);
//	                           source type file refused
//	  tool_use                 kept as assistant tool_calls (input → arguments)
//	  tool_result              kept as a "tool" message before the turn's other
//	                           blocks; text joined by newlines; is_error becomes
//	                           the prefix "Error: "; its images move to the
//	                           user message that follows; a tool_reference
//	                           (a tool search's answer) is a line naming the
//	                           tool as loaded
//	  thinking, redacted_…     dropped (only Anthropic models read them back)
//	  fallback (assistant)     dropped (Anthropic ignores it too)
//	  a system message's
//	    text, mid_conv_system  its text
//	    tool_addition, _removal applied in order to tools: the target gets
//	                           the tools in effect at the end (midsystem.go);
//	                           MCP references refused
//	    clear_at               next_user_message: left out once a user
//	                           message without tool results follows; refused
//	                           when only tool results follow
//	  search_result            its title, source and text, as text
//	                           (refused with citations enabled)
//	  other document blocks,
//	  server tool blocks…      refused
//	system (string or blocks)  kept as one system message, blocks joined by
//	                           newlines (cache_control dropped; a block
//	                           starting x-anthropic-billing-header: dropped)
//	stop_sequences             kept as stop (OpenAI accepts at most 4)
//	temperature, top_p         kept as sent
//	top_k                      dropped (no Chat Completions equivalent)
//	stream                     kept; adds stream_options.include_usage
//	metadata.user_id           kept as user; dropped when it is a JSON object
//	                           (Claude Code's device and session ids)
//	tools (custom)             kept as function tools (input_schema → parameters;
//	                           a schema without type gains "type":"object", an
//	                           object schema without properties "properties":{})
//	tools (server: web_search,
//	  bash, text_editor…)      refused
//	tool_choice                auto → auto, any → required, tool → the named
//	                           function, none → none; dropped without tools;
//	                           disable_parallel_tool_use → parallel_tool_calls=false
//	thinking                   dropped (budgets differ per dialect)
//	service_tier               dropped
//	output_config.effort       dropped
//	output_config.format,
//	  output_format            json_schema kept as response_format json_schema
//	                           (name "output", no strict; format.go); another
//	                           type refused
//	context_management         dropped (its edits clear thinking, dropped anyway)
//	container, mcp_servers,
//	  thread, compaction       refused (thread: Anthropic's server-side turns;
//	                           compaction: a summary instead of an answer)
//	anything else              dropped
//
// It imports provider/chat (canonical structs) and classify (for the error
// type of a class), nothing else of ours.
package messages
