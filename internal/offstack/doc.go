// Package offstack runs deep work on a goroutine of its own while a
// request's handler waits for it (Run). A handler that relays a stream
// keeps its goroutine parked for the stream's whole life, and the runtime
// keeps such a goroutine's stack at the largest size it ever grew to
// (it halves a stack only while under a quarter of it is in use, and a
// relay parks deeper than that). Work that goes deep once — decoding a
// request whole with encoding/json (~0.9 KiB a level of its nesting), the
// flush that makes net/http write a response's header — would double
// the stack every open stream keeps, from 8 KiB to 16 (docs/benchmarks.md,
// "Round 6"). Run hands the work to an idle worker, whose grown stack
// stays: 0.5–1 µs and 168 bytes (docs/benchmarks.md, "Round 32").
package offstack
