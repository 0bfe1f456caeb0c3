// Package chat holds the OpenAI Chat Completions wire structs that the
// translating adapters (provider/anthropic, provider/gemini) share: the
// parsed client request (messages, content parts, tool calls, tools,
// tool_choice, response_format, sampling limits) and the chat.completion /
// chat.completion.chunk bodies they write back, plus small helpers (data:
// URL parsing, ids, timestamps). WholeChunks turns a whole chat.completion
// into the chunks of a stream (dispatch uses it when an upstream answers a
// stream request with a whole answer). StreamChunk is the one shape the
// doors' stream encoders read of a chunk, and ReadStreamChunk reads it as
// json.Unmarshal would, without reflection, with the readers in read.go
// (Members, ReadToolCalls, ReadUsage, …).
//
// It exists so the two adapters do not each carry a copy of OpenAI's request
// shape. It holds no vendor knowledge: anything Anthropic- or Gemini-shaped
// stays in that vendor's package. The pass-through provider/openai adapter
// does not use it (it never decodes the body).
//
// It imports provider (for Request and Usage) and nothing else of ours.
package chat
