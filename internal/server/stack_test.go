package server_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
	"unsafe"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// A held stream costs its handler goroutine 8 KiB of stack, not 16, only
// while nothing the request does on that goroutine needs more: the runtime
// keeps a stack at the largest size it grew to while the goroutine stays
// parked more than a quarter deep, as a relayed stream is (docs/benchmarks.md,
// "Round 6"). The handler below starts the request on an 8 KiB stack; the
// stack is copied, and its locals move, only if it grows. It failed before
// round 6 (the first event's classification and the first flush each grew
// it). The upstream is plain HTTP/1.1: the deepest moment over HTTP/2 with
// TLS (the flow control's TLS write) is measured with
// bench/tools/stackgrow.py, not here. Skipped under -race.
func TestStreamHandlerStackStays8KiB(t *testing.T) {
	if raceOn {
		t.Skip("the race detector doubles the stack guard: stacks grow sooner under it")
	}
	parts := make([]string, 20)
	for i := range parts {
		parts[i] = fmt.Sprintf("word%d ", i)
	}
	srv, grew := stackServer(t, upstreamtest.ChatStream("gpt-4o-mini", parts...))
	// No collection during a request: it could halve the stack, which
	// moves it too.
	// No collection may run while a request is measured: one could halve
	// the handler's stack, which moves it too. A cycle already under way
	// when collection is turned off still runs to its end (and shrinks
	// stacks), so one is finished first (a clean-clone run saw the stack
	// "grow" on a second request once in four).
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	// A connection of its own for each request: a new handler goroutine,
	// whose stack starts small.
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for i := range 3 { // the first request also fills encoding/json's caches, once a process
		last, _ := streamed(t, c, srv.URL+"/v1/chat/completions", `{"model":"gpt","stream":true,"messages":[{"role":"user","content":"hi"}]}`, "")
		if last != "data: [DONE]" {
			t.Fatalf("stream %d ended with %q", i, last)
		}
		if g := <-grew; g && i > 0 {
			t.Errorf("stream %d: the handler's stack grew past 8 KiB", i)
		}
	}
}

// streamed posts body to url and reads the stream to its end: its last
// line that is not blank, and whether a line held mustSee ("" none).
func streamed(t *testing.T, c *http.Client, url, body, mustSee string) (last string, seen bool) {
	t.Helper()
	resp, err := c.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for sc := bufio.NewScanner(resp.Body); sc.Scan(); {
		if sc.Text() != "" {
			last = sc.Text()
		}
		seen = seen || mustSee != "" && strings.Contains(sc.Text(), mustSee)
	}
	return last, seen
}

// stackGrows runs f on a stack of at least 8 KiB and reports whether the
// stack was copied meanwhile, i.e. grew (no collection runs).
//
//go:noinline
func stackGrows(f func()) bool {
	prime(4) // ~4 KiB deeper than here: the stack is 8 KiB from now on
	var here byte
	before := uintptr(unsafe.Pointer(&here))
	f()
	return uintptr(unsafe.Pointer(&here)) != before
}

// prime uses about 1 KiB of stack a level.
//
//go:noinline
func prime(n int) byte {
	var buf [1000]byte
	buf[n] = byte(n)
	if n > 0 {
		return prime(n-1) + buf[n]
	}
	return buf[0]
}

// stackServer serves Detour, in front of an openai-dialect upstream that
// streams events, from a handler that reports on grew whether serving a
// request copied its stack (stackGrows).
func stackServer(t *testing.T, events []string) (*httptest.Server, chan bool) {
	return stackServerAt(t, "openai", "gpt-4o-mini", events)
}

// stackServerAt is stackServer in front of an upstream of dialect serving
// model.
func stackServerAt(t *testing.T, dialect, model string, events []string) (*httptest.Server, chan bool) {
	t.Helper()
	up := upstreamtest.New(upstreamtest.Steps(upstreamtest.Step{Events: events}))
	t.Cleanup(up.Close)
	cfg := gatewaytest.Config(t, `
providers:
  - {name: up, dialect: `+dialect+`, base_url: "`+up.URL+`", api_key: sk-test}
targets:
  - {name: gpt, model: `+model+`, providers: [up]}
`)
	a, err := app.New(cfg, app.Options{Decisions: decision.Discard, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close(context.Background()) })
	grew := make(chan bool, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		grew <- stackGrows(func() { a.Server.ServeHTTP(w, r) })
	}))
	t.Cleanup(srv.Close)
	return srv, grew
}
