//go:build pprof

package main

// A binary built with `-tags pprof` serves net/http/pprof on the loopback
// address in DETOUR_PPROF (e.g. 127.0.0.1:6060), for profiling a real
// `detour serve` (bench/cmd/overhead -pprof). Release builds have no such
// listener: the tag is for benchmarks only (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).

import (
	"fmt"
	"net"
	"net/http"
	_ "net/http/pprof" // registers /debug/pprof on http.DefaultServeMux
	"os"
)

func init() {
	addr := os.Getenv("DETOUR_PPROF")
	if addr == "" {
		return
	}
	host, _, err := net.SplitHostPort(addr)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		fmt.Fprintf(os.Stderr, "DETOUR_PPROF=%q: want a loopback host:port\n", addr)
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintf(os.Stderr, "DETOUR_PPROF: %v\n", err)
		os.Exit(2)
	}
	go http.Serve(ln, nil) //nolint:errcheck // lives as long as the process
}
