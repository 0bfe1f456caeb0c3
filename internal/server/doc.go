// Package server is Detour's HTTP front: the OpenAI-shaped handlers
// (POST /v1/chat/completions, GET /v1/models, GET /v1/health, GET /metrics),
// client authentication, the request body limit, request parsing, the
// X-Detour-* headers, and the one place where error bodies for clients are
// written, always in the OpenAI error envelope.
//
// A configuration is served as one immutable State; Swap replaces it
// atomically (SIGHUP reload) while requests in flight finish on the old one.
// It imports dispatch, health, metrics, config and provider.
package server
