package server

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/dispatch"
)

// Chunks that fill net/http's buffer before the first flush (events held
// back until the commit point, a large first chunk) make the header go out
// before that write: the client gets the headers once and every byte in
// order, over HTTP/1.1 and over HTTP/2 (whose ResponseWriter the flush's
// goroutine then uses).
func TestSSEOutputHeaderWrittenByAFullBuffer(t *testing.T) {
	for _, h2 := range []bool{false, true} {
		t.Run(map[bool]string{false: "http1", true: "http2"}[h2], func(t *testing.T) { headerByFullBuffer(t, h2) })
	}
}

func headerByFullBuffer(t *testing.T, h2 bool) {
	var want strings.Builder
	h := func(o *sseOutput, _ *http.Request) {
		if err := o.Commit(dispatch.Commit{Target: "t1", Provider: "p1", Attempts: 1}); err != nil {
			t.Errorf("Commit: %v", err)
		}
		for i := range 8 {
			if err := o.Chunk([]byte(fmt.Sprintf(`{"n":%d,"pad":%q}`, i, strings.Repeat("x", 600)))); err != nil {
				t.Errorf("Chunk %d: %v", i, err)
			}
		}
		if !o.headerOut {
			t.Error("4.8 KiB written before a flush, and the header is not out")
		}
		if err := o.End(); err != nil {
			t.Errorf("End: %v", err)
		}
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := newSSEOutput(w, "dec-1", "route-a")
		o.timeout = time.Second
		h(o, r)
	}))
	srv.EnableHTTP2 = h2
	srv.StartTLS()
	t.Cleanup(srv.Close)
	for i := range 8 {
		fmt.Fprintf(&want, "data: {\"n\":%d,\"pad\":%q}\n\n", i, strings.Repeat("x", 600))
	}
	want.WriteString("data: [DONE]\n\n")
	resp, err := srv.Client().Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if got := resp.ProtoMajor == 2; got != h2 {
		t.Fatalf("served over %s", resp.Proto)
	}
	body, _ := io.ReadAll(resp.Body)
	if string(body) != want.String() {
		t.Errorf("body %d bytes, want %d:\n%.200q", len(body), want.Len(), body)
	}
	if got := resp.Header.Values("X-Detour-Target"); len(got) != 1 || got[0] != "t1" {
		t.Errorf("X-Detour-Target = %q, want [t1]", got)
	}
}
