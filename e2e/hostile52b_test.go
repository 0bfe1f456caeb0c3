package e2e

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

// h52bChunk is one OpenAI chat.completion.chunk as the Chat Completions API
// streams it (https://platform.openai.com/docs/api-reference/chat-streaming/streaming).
func h52bChunk(content string) string {
	return `data: {"id":"chatcmpl-h52b","object":"chat.completion.chunk","created":1733400000,"model":"gpt-4o-mini","choices":[{"index":0,"delta":{"content":"` + content + `"},"finish_reason":null}]}` + "\n\n"
}

const h52bCfg = `
providers:
  - {name: p, dialect: openai, base_url: "{p}", api_key: ` + secret + `, idle_timeout: 500ms}
targets:
  - {name: t, model: gpt-4o-mini, providers: [p]}
routes:
  - {name: r, targets: [t]}
`

// h52bUpstream streams a first chunk, then a burst of ~8 MiB of content
// (a client that does not read for a moment holds the relay back on it),
// then tail small chunks 50 ms apart, each of whose writes it times (the
// longest is stored in tailMax: the relay read them as they came), then
// ends as end says: "cut" aborts the connection (no finish, no [DONE]),
// "stall" sends nothing more until the gateway gives up.
func h52bUpstream(t *testing.T, end string, tail int, tailMax *atomic.Int64) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		io.WriteString(w, h52bChunk("Hello"))
		fl.Flush()
		big := strings.Repeat("x", 64<<10)
		for i := 0; i < 128; i++ {
			io.WriteString(w, h52bChunk(big))
		}
		fl.Flush()
		for i := 0; i < tail; i++ {
			time.Sleep(50 * time.Millisecond)
			t0 := time.Now()
			io.WriteString(w, h52bChunk(" more"))
			fl.Flush()
			if d := int64(time.Since(t0)); d > tailMax.Load() {
				tailMax.Store(d)
			}
		}
		if end == "stall" {
			<-r.Context().Done()
			return
		}
		panic(http.ErrAbortHandler) // net/http: abort the response, the connection cut
	}))
	t.Cleanup(srv.Close)
	return srv
}

// h52bSlowStart posts a stream request on a connection with a small
// receive buffer, reads nothing for wait, then reads the whole answer as
// fast as it comes; it returns what it read.
func h52bSlowStart(t *testing.T, url string, wait time.Duration) string {
	d := net.Dialer{Control: func(_, _ string, c syscall.RawConn) error {
		var serr error
		c.Control(func(fd uintptr) { serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_RCVBUF, 4096) })
		return serr
	}}
	host := strings.TrimPrefix(url, "http://")
	conn, err := d.DialContext(context.Background(), "tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"r","stream":true,"messages":[{"role":"user","content":"Write a long story."}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", host, len(body), body)
	time.Sleep(wait)
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	b, _ := io.ReadAll(bufio.NewReader(conn))
	return string(b)
}

// Hostile 52b (upstream): the slow-client excuse (watchdog.heldBack) looks
// at whether the client held the relay back for 1 s in all at any time in
// the two minutes before the end, not at whether the hold could have caused
// the end. nginx's send_timeout, the rationale (docs/behaviour.md), is "set
// only between two successive write operations"
// (https://nginx.org/en/docs/http/ngx_http_core_module.html#send_timeout):
// once the relay reads again, the upstream's writes go through and no such
// timer is running. Here the client pauses ~2.5 s at the start and then
// reads as fast as loopback allows; the upstream then streams 4 s more with
// every write returning at once (the relay was reading) and cuts the stream
// itself, or stalls until idle_timeout (a clock that only runs while the
// relay waits for the upstream). Both are the endpoint's own failures and
// must count; Detour records them counted: false "(the client was reading
// slowly: not counted against the endpoint)". An upstream that cuts or
// stalls every long stream is never cooled while its clients paused once.
func TestH52bHeldBackExcusesLaterUpstreamFailure(t *testing.T) {
	for _, end := range []string{"cut", "stall"} {
		t.Run(end, func(t *testing.T) {
			var tailMax atomic.Int64
			up := h52bUpstream(t, end, 80, &tailMax)
			g := start(t, h52bCfg, map[string]*upstreamtest.Server{"p": {Server: up}})
			t0 := time.Now()
			got := h52bSlowStart(t, g.URL, 2500*time.Millisecond)
			d := g.recs.wait(t, 1)
			if len(d.Attempts) == 0 {
				t.Fatalf("no attempt recorded: %+v", d)
			}
			a := d.Attempts[len(d.Attempts)-1]
			t.Logf("client read %d bytes in %v; upstream's slowest tail write %v; attempt: class=%s counted=%v evidence=%q",
				len(got), time.Since(t0).Round(time.Millisecond), time.Duration(tailMax.Load()), a.Class, a.Counted, a.Evidence)
			if time.Duration(tailMax.Load()) > 50*time.Millisecond {
				t.Skipf("the upstream's tail writes blocked (%v): the relay was not reading freely; no finding", time.Duration(tailMax.Load()))
			}
			if !a.Counted {
				t.Errorf("the upstream's own %s, 4 s after the client's one pause (its tail writes all went through at once), counted against nobody: %q", end, a.Evidence)
			}
		})
	}
}

// Control for TestH52bHeldBackExcusesLaterUpstreamFailure (passes): the same
// upstream and client without the client's first pause: the cut counts.
func TestH52bHeldBackControlNoPause(t *testing.T) {
	var tailMax atomic.Int64
	up := h52bUpstream(t, "cut", 20, &tailMax)
	g := start(t, h52bCfg, map[string]*upstreamtest.Server{"p": {Server: up}})
	h52bSlowStart(t, g.URL, 0)
	a := g.recs.wait(t, 1).Attempts[0]
	t.Logf("attempt: class=%s counted=%v evidence=%q", a.Class, a.Counted, a.Evidence)
	if !a.Counted {
		t.Errorf("without a pause the cut counted against nobody: %q", a.Evidence)
	}
}

// h52bBigThenCut streams n chunks of size bytes of content as fast as the
// relay takes them, then aborts the connection.
func h52bBigThenCut(t *testing.T, n, size int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		fl := w.(http.Flusher)
		big := strings.Repeat("x", size)
		for i := 0; i < n; i++ {
			io.WriteString(w, h52bChunk(big))
			fl.Flush()
		}
		panic(http.ErrAbortHandler)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// h52bSteady posts a stream request and reads the answer steadily at rate
// bytes per second (32 KiB at a time, never stopping longer than one
// step), as a client on an ordinary link; it returns the longest gap
// between two reads.
func h52bSteady(t *testing.T, url string, rate int) (int, time.Duration) {
	host := strings.TrimPrefix(url, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"model":"r","stream":true,"messages":[{"role":"user","content":"Draw it."}]}`
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", host, len(body), body)
	conn.SetReadDeadline(time.Now().Add(60 * time.Second))
	buf := make([]byte, 32<<10)
	step := time.Duration(int64(time.Second) * int64(len(buf)) / int64(rate))
	total := 0
	var gap time.Duration
	last := time.Now()
	for {
		n, err := conn.Read(buf)
		total += n
		if d := time.Since(last); d > gap {
			gap = d
		}
		last = time.Now()
		if err != nil {
			return total, gap
		}
		time.Sleep(step)
	}
}

// Hostile 52b (upstream): heldBack sums the relay's write pauses of 50 ms
// or more, so a client that never stops reading but reads at an ordinary
// link's pace (4 MB/s here, 32 KiB every 8 ms) "held the relay back" as
// soon as the upstream sends big events faster than that (1 MiB each: the
// size of a base64 partial image in an image stream). The upstream that
// then cuts its own stream is excused: each pause let the relay read
// again, so nginx's send_timeout (reset by every successful write,
// https://nginx.org/en/docs/http/ngx_http_core_module.html#send_timeout)
// never ran anywhere near its 60 s. The cut must count.
func TestH52bHeldBackSteadyReaderBigEvents(t *testing.T) {
	up := h52bBigThenCut(t, 12, 1<<20)
	g := start(t, h52bCfg, map[string]*upstreamtest.Server{"p": {Server: up}})
	n, gap := h52bSteady(t, g.URL, 4<<20)
	a := g.recs.wait(t, 1).Attempts[0]
	t.Logf("client read %d bytes, longest gap between its reads %v; attempt: class=%s counted=%v evidence=%q", n, gap.Round(time.Millisecond), a.Class, a.Counted, a.Evidence)
	if !a.Counted {
		t.Errorf("the upstream's own cut counted against nobody although the client read steadily (longest gap %v): %q", gap.Round(time.Millisecond), a.Evidence)
	}
}
