// Package upstreamtest runs scripted fake LLM providers on real loopback HTTP
// servers, for tests and for `detour demo`: each call answers with a Step
// (status, headers, body or SSE events, delays, a cut connection, a stall),
// and every request received is recorded for assertions.
//
// It imports nothing of ours, so tests of every package may use it.
package upstreamtest
