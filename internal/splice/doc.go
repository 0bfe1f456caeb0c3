// Package splice holds the building blocks of mid-stream continuation
// (docs/design.md, "Mid-stream continuation: the building blocks"): when a
// committed stream is cut, the answer is continued at another upstream and
// the client still sees one seamless chat.completion.chunk stream.
//
//   - Seam rewrites the canonical chunks of successive upstream streams into
//     one stream: the first stream's id, created and model, one role delta,
//     usage accumulated across upstreams. It tracks what has been delivered
//     (the text of choice 0, whether a tool call or other non-text delta was
//     sent) and says, at a cut, whether and how the answer may be continued.
//   - Prefill builds the continuation request for a target that accepts an
//     assistant prefill, and its Join trims from the continuation the
//     whitespace the prefill had to drop, so the text is joined without a
//     doubled or missing space.
//   - Replay holds back a replacement stream while it reproduces the
//     delivered text exactly, passes on what follows, and reports divergence.
//   - PrefillRefused recognises an upstream's refusal of a prefill, so the
//     caller falls back to replay.
//
// Everything works on canonical chunk JSON (internal/provider/chat shapes):
// no HTTP, no dispatch. Unknown members of a chunk are kept. None of the
// types is safe for concurrent use; each serves one client stream.
package splice
