package server

import (
	"bufio"
	"bytes"
	"io"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/dispatch"
)

// One batch (many Chunk calls, no Flush between) far larger than
// net/http's buffers, to a client that stopped reading, ends with an error
// within the one write deadline set at the batch's first write.
func TestBatchLargeBatchStalledClientBounded(t *testing.T) {
	const timeout = 300 * time.Millisecond
	type result struct {
		err     error
		n       int
		elapsed time.Duration
	}
	done := make(chan result, 1)
	srv := outputServer(t, timeout, func(o *sseOutput, _ *http.Request) {
		_ = o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1})
		chunk := bytes.Repeat([]byte("x"), 1<<10)
		start := time.Now()
		for i := 0; i < 64<<10; i++ { // 64 MiB in one batch
			if err := o.Chunk(chunk); err != nil {
				done <- result{err, i, time.Since(start)}
				return
			}
		}
		done <- result{o.Flush(), -1, time.Since(start)}
	})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n")
	if _, err := http.ReadResponse(bufio.NewReaderSize(conn, 1024), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		t.Logf("error %v after %d chunks, %v", r.err, r.n, r.elapsed)
		if r.err == nil {
			t.Fatal("a 64 MiB batch to a client that stopped reading succeeded")
		}
		if r.elapsed > 3*timeout {
			t.Errorf("the batch held the stream %v, past its one write deadline %v", r.elapsed, timeout)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a batch to a stalled client never returned")
	}
}
