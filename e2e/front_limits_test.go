package e2e

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// Bounded memory at the front (docs/security.md, "Bounded memory"): the
// request bodies held at once, and what slow clients can hold.

// bigBody is a chat request of about n bytes.
func bigBody(n int) string {
	return `{"model":"a","messages":[{"role":"user","content":"` + strings.Repeat("x", n-64) + `"}]}`
}

// wantBusy checks r is the 503 of a full body allowance.
func wantBusy(t *testing.T, r reply) {
	t.Helper()
	wantEnvelope(t, r, 503, "max_inflight_body_bytes")
	if ra, err := strconv.Atoi(r.Header.Get("Retry-After")); err != nil || ra < 1 {
		t.Errorf("Retry-After %q, want a number of seconds", r.Header.Get("Retry-After"))
	}
}

const inflightCfg = `
max_body_bytes: 1048576
max_inflight_body_bytes: 4194304
` + frontCfg

// Bounded memory: request bodies held at once (read, and kept for failover
// until the request ends) never exceed max_inflight_body_bytes; a request
// past it is answered 503 with Retry-After at once, never queued, and the
// allowance comes back when the requests holding it end.
func TestInflightBodyBytesAreCapped(t *testing.T) {
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	fs := fakes(t, map[string]upstreamtest.Script{"p": func(int, upstreamtest.Request) upstreamtest.Step {
		<-release // a slow upstream: every request holds its body until released
		return ok("model-a", "a")
	}})
	g := start(t, inflightCfg, fs)
	t.Cleanup(free) // before the fake and the gateway close, which wait for it
	body := bigBody(900 << 10)
	// Four bodies of 900 KiB fit in 4 MiB; while the upstream holds them, a
	// fifth does not, and is told so at once.
	var held []<-chan reply
	for range 4 {
		held = append(held, g.postAsync(body))
	}
	waitCalls(t, fs["p"], 4)
	wantBusy(t, within(t, g.postAsync(body), "a fifth body past the allowance was queued or sent upstream"))
	// A small body still fits in what is left.
	small := g.postAsync(hiBody)
	waitCalls(t, fs["p"], 5)
	free()
	for _, c := range held {
		within(t, c, "a held body").wantStatus(t, 200)
	}
	within(t, small, "the small body").wantStatus(t, 200)
	// Released: the same body is served again.
	g.raw(t, http.MethodPost, "/v1/chat/completions", body).wantStatus(t, 200)
	if n := fs["p"].Calls(); n != 6 {
		t.Errorf("the upstream was called %d times, want 6 (the refused body never reached it)", n)
	}
}

// A burst of large bodies: some are served, the rest are refused with 503
// at once, and no more are served together than fit in the allowance.
func TestInflightBurst(t *testing.T) {
	release := make(chan struct{})
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	fs := fakes(t, map[string]upstreamtest.Script{"p": func(int, upstreamtest.Request) upstreamtest.Step {
		<-release
		return ok("model-a", "a")
	}})
	g := start(t, inflightCfg, fs)
	t.Cleanup(free) // before the fake and the gateway close, which wait for it
	body := bigBody(900 << 10)
	const n = 12
	var all []<-chan reply
	for range n {
		all = append(all, g.postAsync(body))
	}
	// Every refusal comes back while the served ones are still held.
	var busy int
	done := make([]bool, n)
	for deadline := time.Now().Add(30 * time.Second); fs["p"].Calls()+busy < n; {
		if time.Now().After(deadline) {
			t.Fatalf("after 30s, %d bodies reached the upstream and %d were refused, of %d", fs["p"].Calls(), busy, n)
		}
		for i, c := range all {
			select {
			case r := <-c:
				wantBusy(t, r)
				busy++
				done[i] = true
			default:
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
	if served := fs["p"].Calls(); served < 1 || served > 4 {
		t.Errorf("%d bodies of 900 KiB held at once in 4 MiB", served)
	}
	free()
	for i, c := range all {
		if !done[i] {
			within(t, c, "a held body").wantStatus(t, 200)
		}
	}
	g.raw(t, http.MethodPost, "/v1/chat/completions", body).wantStatus(t, 200)
}

// A client that trickles its request (slowloris) is cut off by the
// server's read limits, and the body allowance it held comes back. The
// limits are shortened here (app.Options); production keeps 10s for the
// headers and 60s for the whole request.
func TestSlowClientsCannotHoldTheAllowance(t *testing.T) {
	t.Parallel() // seconds of waiting (or CPU) each: overlap them
	fs := fakes(t, map[string]upstreamtest.Script{"p": script(ok("model-a", "a"))})
	yaml := strings.ReplaceAll("max_body_bytes: 1048576\nmax_inflight_body_bytes: 2097152\n"+frontCfg, "{p}", fs["p"].URL)
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, yaml), app.Options{
		Decisions: decision.Discard, ReadHeaderTimeout: 500 * time.Millisecond, ReadTimeout: 3 * time.Second})
	g := &gateway{URL: url}
	addr := strings.TrimPrefix(url, "http://")
	body := bigBody(900 << 10)
	// Two uploads declare 900 KiB, send 600 KiB and stall.
	var slow []net.Conn
	for range 2 {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, len(body), body[:600<<10])
		slow = append(slow, c)
	}
	// While they hold the allowance, a third large body is refused at once,
	// by its declared size. The probe sends no body: if the uploads are not
	// yet all read, the server waits for the probe's body holding at most
	// its first 64 KiB, too little to refuse the stalled uploads room, and
	// the probe gives up and tries again.
	start := time.Now()
	for {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", addr, len(body))
		c.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err == nil {
			b, _ := io.ReadAll(resp.Body)
			c.Close()
			wantBusy(t, reply{Status: resp.StatusCode, Header: resp.Header, Body: b})
			break
		}
		c.Close()
		if time.Since(start) > 2*time.Second {
			t.Fatal("the stalled uploads never held the allowance")
		}
	}
	// The read limit cuts them off (an answer, then the end of the connection).
	for _, c := range slow {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		if _, err := io.ReadAll(c); err != nil {
			t.Fatalf("a stalled upload was not cut off by the read timeout: %v", err)
		}
	}
	g.send(t, http.MethodPost, "/v1/chat/completions", body, "Content-Type", "application/json").wantStatus(t, 200)
	// Trickled headers are cut off too.
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\n", addr)
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := io.ReadAll(c); err != nil {
		t.Fatalf("trickled headers were not cut off: %v", err)
	}
	if time.Since(start) > 8*time.Second {
		t.Errorf("took %s", time.Since(start))
	}
}
