// Package server is Detour's HTTP front: the OpenAI-shaped handlers
// (POST /v1/chat/completions, GET /v1/models, GET /v1/health, GET /metrics),
// client and admin authentication, the defences against hostile clients,
// request parsing, and everything written to a client: the X-Detour-*
// headers (set in one place, detourHeaders), SSE framing of streams (its
// dispatch.Output, output.go) and every error body, in the OpenAI error
// envelope written by one encoder (envelope.go).
//
// The Anthropic Messages door (messages.go: POST /v1/messages and
// /v1/messages/count_tokens; models.go: GET /v1/models for Anthropic
// clients) has its own Output (messages_output.go) and writes every error
// in Anthropic's envelope (door/messages); docs/doors.md describes it.
//
// The defences (docs/security.md, "Hostile clients at the HTTP front"):
// guard.go refuses what a web page could send (a foreign Origin, a
// cross-site fetch, a DNS-rebinding Host) and answers CORS for listed
// origins; body.go reads a body within max_body_bytes and the
// max_inflight_body_bytes allowance shared by all requests; strict.go reads
// the body once, strictly, so the gateway and every upstream read it alike.
//
// A configuration is served as one immutable State; Swap replaces it
// atomically (SIGHUP reload) while requests in flight finish on the old one.
// It imports dispatch, the doors, health, metrics, config, limit, decision,
// sse and classify, never provider: upstream dialects are dispatch's business.
package server
