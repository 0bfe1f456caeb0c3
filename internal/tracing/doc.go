// Package tracing turns decision records into OpenTelemetry traces (opt-in:
// tracing.otlp_endpoint): one server span per request and one client span
// per attempt, placed at the attempt's start, with the GenAI semantic
// convention attributes (gen_ai.operation.name, gen_ai.provider.name,
// gen_ai.request.model, gen_ai.response.model, gen_ai.usage.*) and Detour's
// own (detour.class, detour.evidence, detour.action, …). Skipped candidates
// and health transitions are events on the request span.
//
// Spans are built from the finished record, not threaded through dispatch:
// the record already holds every attempt with its timing, so a request's
// path through the gateway pays nothing for tracing until it ends. Extract
// puts an incoming W3C traceparent into the request's context, and the
// Tracer (a decision.ContextSink) continues that trace.
//
// It uses the official Go SDK and its OTLP/HTTP exporter. It imports
// decision, nothing else of ours.
package tracing
