// Package responses is the door for OpenAI's Responses API
// (POST /v1/responses): pure translation between its wire shapes and the
// canonical OpenAI Chat Completions JSON every upstream adapter takes
// (internal/provider/chat). It does no HTTP and knows nothing of dispatch.
//
// The door is stateless: Detour keeps no responses, so `store: true`,
// `previous_response_id`, `conversation`, `background: true`, stored
// `prompt`s and `item_reference` inputs are refused with an *Error the
// server answers with 400. Function tools translate; namespace tools are
// flattened and their calls mapped back, additional_tools items lifted,
// web_search dropped (tools.go); custom and other built-in tools (file
// search, computer use, code interpreter, MCP, ...) are refused, and so is
// include "message.output_text.logprobs" (a translated answer has none).
// docs/doors.md lists every field kept, dropped or refused.
//
// The four parts:
//   - Translate: a Responses request body → canonical chat JSON, plus the
//     request parameters the response object repeats (Echo).
//   - FromCompletion: a canonical chat.completion → a Responses `response`
//     object.
//   - Stream: a stateful encoder fed canonical chat.completion.chunk JSON
//     objects one at a time, producing complete SSE frames in the Responses
//     event order.
//   - Envelope: the OpenAI error envelope. (Targets that speak Responses
//     natively get the client's body through dispatch's native passthrough,
//     provider.Request.WithModel.)
//
// Shapes follow the openai-go v3.99.0 `responses` package types (Response,
// ResponseOutputMessage, ResponseFunctionToolCall, ResponseUsage and the
// Response*Event stream types in responses/response.go) and OpenAI's
// reference at https://platform.openai.com/docs/api-reference/responses and
// https://platform.openai.com/docs/api-reference/responses-streaming.
package responses
