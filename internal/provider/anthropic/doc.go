// Package anthropic is the adapter for Anthropic's Messages API
// (POST {base_url}/v1/messages, x-api-key, anthropic-version: 2023-06-01).
//
// It translates an OpenAI chat-completions request into a Messages request:
// system and developer messages (wherever they stand) become the top-level
// "system" string, joined by blank lines; user and assistant turns keep their
// roles, consecutive turns of one role are merged; text and image parts
// become text and image blocks (data: URLs as base64 sources, other URLs as
// url sources), a file part holding a PDF a base64 document block; an
// assistant's refusal (its refusal member, or a refusal
// part) becomes its text; assistant tool_calls become tool_use blocks
// (arguments that are not a JSON object: the members that were whole);
// "tool" messages become tool_result blocks in one user turn; tools (a
// parameters object without "type", {} most often, gets "type":"object",
// which Anthropic requires, and a top-level anyOf/oneOf/allOf, which it
// refuses, is folded into one object schema: rootschema.go), tool_choice
// (required→any, a named function→tool, allowed_tools→only the listed
// tools offered; not sent without tools) and
// parallel_tool_calls=false (disable_parallel_tool_use) are carried over; stop becomes
// stop_sequences (but a stop string of whitespace alone, which Anthropic
// refuses) and user becomes metadata.user_id as the hex SHA-256 of it
// (Anthropic wants an opaque id, and refuses an email address). n above 1
// and logprobs are a translation error: Claude answers one choice and no
// log-probabilities; so is an inline image of a type other than JPEG, PNG,
// GIF or WebP, which Anthropic refuses, and what chat.Request.Unanswerable names (a tool that is not a function,
// the deprecated functions, audio output, web_search_options), which Claude
// would answer with text that does not say what it lacks.
//
// Defaults and deliberate losses:
//   - text that is empty or whitespace alone is left out (Anthropic
//     refuses such text blocks); a conversation left with no turn sends
//     its system text as the one user turn instead of "system" (Anthropic
//     wants a message), and one with no text at all is a translation error
//     (docs/doors.md, "Chat Completions to Claude and Gemini targets").
//   - a conversation ending with an assistant turn (a prefill) has the
//     trailing whitespace of its final text trimmed, which Anthropic
//     refuses there.
//   - max_tokens is required by Anthropic: max_completion_tokens, else
//     max_tokens, else the model's own maximum fitted into its context
//     window (maxtokens.go), at least DefaultMaxTokens (4096).
//   - temperature is clamped to Anthropic's range [0, 1] (OpenAI allows up to
//     2): a request that works at one vendor should not be a bad_request at
//     the next.
//   - presence/frequency penalties, seed, reasoning_effort, logit_bias and
//     the members that steer price, speed or storage (service_tier, store,
//     prediction, metadata…) have no Messages equivalent and are dropped
//     (docs/doors.md, "Chat Completions to Claude and Gemini targets").
//   - response_format json_schema and json_object become a forced answer
//     tool (structured.go; docs/doors.md, "Structured output on Claude
//     targets"): AnswerTool with the client's schema as input_schema, or
//     ValueTool wrapping a schema whose top level is not an object; beside
//     the client's own tools it joins them under tool_choice any; a request
//     ending with an assistant turn (a prefill) gets none. A client tool may
//     not take either name (a translation error).
//   - at a model that refuses it (generation.go: from Opus 4.7, and every
//     family from 5, temperature/top_p/top_k; from 5.1, a forced
//     tool_choice) the setting is not sent: sampling is left out, and
//     required, a named function or the answer tool go as tool_choice auto
//     (review 66d); max_tokens is capped at 128,000 from the 5 generation.
//   - at Opus, Sonnet, Fable and Mythos from 5.1 (not by a Bedrock id), a
//     json_schema response_format with an object schema is Anthropic's JSON
//     outputs instead, output_config.format with the schema fitted as
//     Anthropic's SDKs fit it (nativeschema.go, review 66f): no answer
//     tool, the client's tools and tool_choice as set, and the answer's
//     text is the content as for any answer. json_object, another top
//     level and a schema fitting would change keep the answer tool under
//     auto; a prefill gets neither (structured.go).
//   - thinking blocks in answers are dropped (the adapter never asks for
//     them, but Claude Sonnet 5 and Opus 5 think unasked): their deltas,
//     like a server tool's input, are progress, not content (probe 66b).
//
// Answers: text blocks are concatenated into message.content, tool_use blocks
// become tool_calls (the answer tool's input is instead the whole content,
// with stop_reason tool_use read as stop when no client tool was called), stop_reason maps to finish_reason (end_turn and
// stop_sequence→stop, max_tokens→length, tool_use→tool_calls,
// refusal→content_filter), usage and the answering model are kept. Streams
// are translated event by event; message_start and ping carry no content so
// the gateway can still fail over after them.
//
// It imports provider, sse and provider/chat (shared OpenAI wire structs),
// nothing else of ours.
package anthropic
