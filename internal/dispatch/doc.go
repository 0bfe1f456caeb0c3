// Package dispatch serves one chat-completions request: it asks health for
// the state of the route's endpoints, orders them (package route), walks the
// plan calling dialect adapters, classifies every answer, applies the policy
// table (retry the endpoint, next endpoint, next target, guarded tail, or
// stop), reports outcomes to health, pages the operator, and records every
// attempt and skip in the decision record.
//
// The walk (walk.go, target.go, order.go) makes every routing decision from the
// route's policy.Table, one row lookup per attempt outcome; an attempt is a
// caller (one upstream call, one outcome), which unit tests replace with a
// fake that makes no HTTP call.
//
// It owns the stream commit point: before the first content byte reaches the
// client, any failure may still fail over; after it, a cut or stall ends the
// stream with a Failure (the client sees an error event and no [DONE]), and
// so does a stream that ends without a finish reason — unless the route
// continues cut streams (on_stream_cut: continue, continue.go): the walk then
// goes on from the cut, by prefill or replay, and the client still sees one
// stream. The route's deadline applies until the
// commit point only; max_stream_duration after it. Neither counts against
// health. What an upstream sends is bounded (held-back events, lines and
// events, headers, whole answers); see docs/security.md ("Hostile or broken upstreams").
//
// It is the only package that joins routing, health, policy and adapters.
// It never writes to the client (call.go): a Call and a Result carry facts,
// and a committed stream goes, one canonical chunk at a time, to the
// Output the server gives it; headers, envelopes and SSE framing are the
// server's.
//
// A Call from another client door may carry the client's own body
// (Native, native.go): endpoints whose adapter serves that API get it with
// only "model" replaced and their answer is handed back raw (Result.Native,
// Commit.Native); the others get the canonical Body. Classification, the
// commit point and the record are the same either way.
package dispatch
