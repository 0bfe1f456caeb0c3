// Command tracecrit reads the runtime traces that `go run ./bench/cmd/overhead
// -pprof DIR` saves (DIR/detour.trace, DIR/plain.trace) and prints where a
// paced request's time goes inside each proxy, on the path every request
// takes through net/http with an HTTP/2 upstream:
//
//   - own work: from the connection goroutine's start on the request (after
//     the netpoller woke it) to the creation of the HTTP/2 stream's
//     goroutine (net/http's clientStream.doRequest): reading and checking
//     the request, choosing the upstream, building its request;
//   - upstream: from there until the response headers wake the connection
//     goroutine;
//   - wake-up: from that wake-up until the goroutine runs;
//   - answer: from the headers' wake-up to the first write to the client;
//
// with medians and quartiles, and how many goroutines each proxy creates
// and wakes a second. It is a module of its own so that the gateway does
// not depend on golang.org/x/exp (docs/benchmarks.md, round 8):
//
//	cd bench/tracecrit && go run . DIR/detour.trace DIR/plain.trace
package main
