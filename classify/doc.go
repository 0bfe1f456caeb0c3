// Package classify places every upstream LLM answer in one of twelve closed
// failure classes, with the evidence that decided it.
//
// It reads the status first and, only where providers are known to overload
// a status, the first 4 KiB of the body, in every major dialect (OpenAI-style
// error.code/type/param, Anthropic error.type, Gemini error.status and
// details.reason, promptFeedback.blockReason, finishReason SAFETY, OpenRouter's
// 200-with-error body, SSE error events).
//
// It is public on purpose: any Go program that calls LLM providers can import
// it without the gateway. It imports nothing of Detour's.
package classify
