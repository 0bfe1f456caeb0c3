// Package provider defines the one small Adapter interface every dialect
// implements (build the upstream request, translate a complete answer,
// translate a stream) and the types adapters and dispatch share: the
// client's Request (with WithModel, which sets "model" without decoding the
// rest), the upstream Endpoint, translated stream Events, Usage, and
// NextEvent, the SSE step every dialect's stream reader starts with. Vendor
// wire structs stay inside each dialect's package: provider/openai,
// provider/anthropic, provider/gemini; the OpenAI shapes the translating
// adapters share live in provider/chat. There is no registry here: dispatch
// picks the adapter for a provider's configured dialect.
//
// Adapters never know about routing, health or policy. This package imports
// only sse of ours (for the stream reader).
package provider
