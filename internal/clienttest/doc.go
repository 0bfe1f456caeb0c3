// Package clienttest drives real clients — the coding-agent CLIs Claude
// Code (@anthropic-ai/claude-code), Codex CLI (@openai/codex) and Gemini
// CLI (@google/gemini-cli) for one non-interactive turn, and the JavaScript SDKs (openai,
// @anthropic-ai/sdk, the Vercel AI SDK, the OpenAI Agents SDK, LangChain
// JS) through the scripts of e2e/testdata/node — against a base URL on
// loopback, and records what they send.
//
//   - Recorder: a loopback HTTP server that answers just enough of every
//     dialect for a turn and a tool round trip to complete — the Anthropic
//     Messages API (/v1/messages, count_tokens, models), the OpenAI
//     Responses and Chat Completions APIs and embeddings (floats or
//     base64, as asked), Gemini's generateContent, streamGenerateContent
//     and batchEmbedContents — and records every request (method, path,
//     query, headers with secrets masked, body). With Object set it answers
//     a structured-output request with that JSON, as text or as the forced
//     tool's input. It serves as the upstream of any dialect behind Detour
//     too.
//   - RunClaude, RunCodex, RunGemini: run the CLI once with a throwaway HOME, every
//     network feature that is not the model call switched off, and the
//     given base URL; they skip the test when the CLI is not installed.
//   - RunNode: runs one script of e2e/testdata/node with node and the
//     packages e2e/testdata/node/package.json pins, found in
//     $DETOUR_CLIENTS_DIR/node_modules; each case prints one JSON line,
//     which NodeResult.Case and CaseError read.
//
// Driving a CLI through Detour: start the gateway with loopback upstream
// fakes (internal/upstreamtest, or a Recorder as an Anthropic or Responses
// upstream), then RunClaude(t, gatewayURL, "say hi", Options{}) or
// RunCodex(t, gatewayURL, …); the Result holds the CLI's output, the
// fakes hold what Detour sent upstream.
//
// The CLIs are found under $DETOUR_CLIENTS_DIR (an npm prefix holding
// node_modules/.bin/claude, codex and gemini), then on PATH; a CLI that
// is missing or not the pinned version (ClaudeCodeVersion, CodexVersion,
// GeminiCLIVersion) skips the test, or fails it under
// DETOUR_CLIENTS_REQUIRED=1.
// docs/doors.md ("Real clients") reports what the recorded requests hold;
// e2e/testdata/clients has the recordings.
package clienttest
