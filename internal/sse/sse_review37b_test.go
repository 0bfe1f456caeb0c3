package sse

import (
	"io"
	"strings"
	"testing"
	"time"
)

// Review 37b. The reader ends a line at a bare CR too (readLine's
// comment: "a bare \r, which ends a line too in the SSE format"), but it
// only looks for CRs inside what ReadSlice('\n') returned. An upstream
// whose lines end in CR alone (the SSE grammar's third end of line) has
// its events held until a LF comes: here the first event, complete on
// the wire, is not returned while the connection stays open.
func TestReview37bBareCREventsAreReadWhenTheyArrive(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	go io.WriteString(pw, "data: {\"a\":1}\r\r")
	r := NewReader(pr, 0)
	got := make(chan string, 1)
	go func() {
		ev, err := r.Next()
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(ev.Data)
	}()
	select {
	case s := <-got:
		if s != `{"a":1}` {
			t.Errorf("got %q", s)
		}
	case <-time.After(2 * time.Second):
		t.Errorf("an event whose lines end in bare CRs was not returned while the stream stays open")
		pw.Close()
	}
}

// The same stream of CR-only lines, longer than one line's limit in all:
// the whole stream is gathered as one line and refused as too long.
func TestReview37bBareCRStreamLongerThanALine(t *testing.T) {
	var b strings.Builder
	for b.Len() < 3000 {
		b.WriteString("data: {\"x\":\"0123456789\"}\r\r")
	}
	r := NewReader(strings.NewReader(b.String()), 1024)
	n := 0
	for {
		_, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("after %d events: %v (each event is 26 bytes, the limit 1024)", n, err)
		}
		n++
	}
}
