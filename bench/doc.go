// Package bench measures what Detour adds to a request: latency, CPU,
// allocations and memory, against a loopback fake provider
// (internal/upstreamtest) called directly and through a gateway started
// in-process (app.New + app.Serve on 127.0.0.1:0, memory store, decisions
// discarded, logs to io.Discard).
//
// Everything here is a benchmark and runs only with -bench; a plain
// `go test ./bench` runs one quick check that the setup answers. Client, fake
// and gateway share one process (and its cores), so every figure that cannot
// be split per component is reported as a difference from the same clients
// against the fake directly. See docs/benchmarks.md, section "Gateway", for
// the commands and the figures.
//
// bench/cmd/overhead is the one-run comparison with a real `detour serve`
// process beside a plain httputil.ReverseProxy (docs/benchmarks.md, section
// "Overhead beside a plain reverse proxy").
package bench
