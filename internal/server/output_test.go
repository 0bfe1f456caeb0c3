package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/dispatch"
)

// outputServer serves every request with h, which gets a fresh sseOutput
// whose write timeout is timeout.
func outputServer(t *testing.T, timeout time.Duration, h func(o *sseOutput, r *http.Request)) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		o := newSSEOutput(w, "dec-1", "route-a")
		o.timeout = timeout
		h(o, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A stream's X-Detour-* headers are set once, at the commit point, with
// the framing: chunks as data events, [DONE] at the end; nothing may be
// written out of order.
func TestSSEOutputHeadersOnceAndFraming(t *testing.T) {
	misuse := make(chan []error, 1)
	srv := outputServer(t, time.Second, func(o *sseOutput, _ *http.Request) {
		var errs []error
		errs = append(errs, o.Chunk([]byte(`{"early":true}`))) // before the commit point
		if err := o.Commit(dispatch.Commit{Target: "t1", Provider: "p1", Attempts: 2}); err != nil {
			t.Errorf("Commit: %v", err)
		}
		errs = append(errs, o.Commit(dispatch.Commit{Target: "t2", Provider: "p2", Attempts: 3}))
		if err := o.Chunk([]byte(`{"n":1}`)); err != nil {
			t.Errorf("Chunk: %v", err)
		}
		if err := o.End(); err != nil {
			t.Errorf("End: %v", err)
		}
		errs = append(errs, o.Chunk([]byte(`{"late":true}`)), o.Fail(&dispatch.Failure{Status: 502, Class: classify.ServerError}))
		misuse <- errs
	})
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if got, want := string(body), "data: {\"n\":1}\n\ndata: [DONE]\n\n"; got != want {
		t.Errorf("body %q, want %q", got, want)
	}
	want := map[string]string{"X-Detour-Decision": "dec-1", "X-Detour-Route": "route-a", "X-Detour-Target": "t1",
		"X-Detour-Provider": "p1", "X-Detour-Attempts": "2", "Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
	for k, v := range want {
		if got := resp.Header.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q, want exactly [%q]", k, got, v)
		}
	}
	if got := resp.Header.Values("X-Detour-Class"); len(got) != 0 {
		t.Errorf("X-Detour-Class = %q on a stream that did not fail", got)
	}
	for i, err := range <-misuse {
		if err == nil {
			t.Errorf("out-of-order call %d was accepted", i)
		}
	}
}

// A stream that breaks after the commit point ends with an error event
// carrying the one envelope, and no [DONE].
func TestSSEOutputFail(t *testing.T) {
	srv := outputServer(t, time.Second, func(o *sseOutput, _ *http.Request) {
		_ = o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1})
		_ = o.Chunk([]byte(`{"n":1}`))
		if err := o.Fail(&dispatch.Failure{Status: 502, Class: classify.ServerError, Message: "cut <here>"}); err != nil {
			t.Errorf("Fail: %v", err)
		}
	})
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	rest, ok := strings.CutPrefix(string(body), "data: {\"n\":1}\n\nevent: error\ndata: ")
	if !ok || !strings.HasSuffix(rest, "\n\n") || strings.Contains(rest, "[DONE]") {
		t.Fatalf("body %q", body)
	}
	var env struct {
		Error struct {
			Message, Type, Code string
			Param               *string
		}
	}
	if err := json.Unmarshal([]byte(rest), &env); err != nil {
		t.Fatalf("error event data %q: %v", rest, err)
	}
	if env.Error.Message != "cut <here>" || env.Error.Type != "server_error" || env.Error.Code != "server_error" {
		t.Errorf("envelope %+v", env.Error)
	}
	if own := envelope("server_error", "server_error", "cut <here>"); !bytes.Equal(own, []byte(rest[:len(rest)-2])) {
		t.Errorf("the stream's envelope %s differs from the gateway's own %s", rest, own)
	}
}

// A client that stops reading is dropped after the write timeout: a write
// or the flush after it reports it, instead of holding the stream (and its
// upstream) forever.
func TestSSEOutputStalledClient(t *testing.T) {
	const timeout = 300 * time.Millisecond
	type result struct {
		err     error
		blocked time.Duration // how long the failing write took
	}
	done := make(chan result, 1)
	srv := outputServer(t, timeout, func(o *sseOutput, _ *http.Request) {
		_ = o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1})
		chunk := bytes.Repeat([]byte("x"), 64<<10)
		give := time.Now().Add(5 * time.Second)
		for time.Now().Before(give) {
			start := time.Now()
			if err := chunkAndFlush(o, chunk); err != nil {
				done <- result{err, time.Since(start)}
				return
			}
		}
		done <- result{}
	})
	conn, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := io.WriteString(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
		t.Fatal(err)
	}
	// Read the headers, then stop reading.
	if _, err := http.ReadResponse(bufio.NewReaderSize(conn, 1024), nil); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-done:
		if r.err == nil {
			t.Fatal("every write to a client that stopped reading succeeded")
		}
		if r.blocked < timeout/2 {
			t.Errorf("the failing write returned after %v, before the write timeout %v", r.blocked, timeout)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to a stalled client never returned")
	}
}

// chunkAndFlush writes one chunk and flushes it, as dispatch does before
// it waits for the upstream.
func chunkAndFlush(o *sseOutput, chunk []byte) error {
	if err := o.Chunk(chunk); err != nil {
		return err
	}
	return o.Flush()
}

// A client that goes away is reported by the next writes.
func TestSSEOutputGoneClient(t *testing.T) {
	gone := make(chan struct{})
	done := make(chan error, 1)
	srv := outputServer(t, time.Second, func(o *sseOutput, r *http.Request) {
		_ = o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1})
		_ = chunkAndFlush(o, []byte(`{"n":0}`))
		<-gone
		<-r.Context().Done() // the server noticed the connection closed
		var err error
		for i := 0; i < 100 && err == nil; i++ {
			err = chunkAndFlush(o, []byte(`{"n":1}`))
			time.Sleep(time.Millisecond)
		}
		done <- err
	})
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(resp.Body).ReadString('\n')
	if err != nil || line != "data: {\"n\":0}\n" {
		t.Fatalf("first line %q, %v", line, err)
	}
	resp.Body.Close() // a stream not read to its end: the connection is closed
	close(gone)
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("writes to a client that went away kept succeeding")
		}
		if errors.Is(err, errEnded) || errors.Is(err, errNotCommitted) {
			t.Fatalf("wrong error: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a write to a gone client never returned")
	}
}

// A whole answer's headers come from the same place, with the class when
// it failed and without target and provider when no attempt was made.
func TestDetourHeadersWholeAnswer(t *testing.T) {
	h := http.Header{}
	detourHeaders(h, answer{id: "d", route: "r", attempts: 0, class: "timeout"})
	for k, v := range map[string]string{"X-Detour-Decision": "d", "X-Detour-Route": "r", "X-Detour-Attempts": "0", "X-Detour-Class": "timeout",
		"X-Request-Id": "d", "Request-Id": "d"} {
		if got := h.Values(k); len(got) != 1 || got[0] != v {
			t.Errorf("%s = %q, want [%q]", k, got, v)
		}
	}
	if h.Get("X-Detour-Target") != "" || h.Get("X-Detour-Provider") != "" {
		t.Errorf("target/provider set with no attempt: %v", h)
	}
}

// The X-Detour-* values share one allocation: a header added to or changed
// later (a door's own Set, an Add) never reaches another's value.
func TestDetourHeadersAreIndependent(t *testing.T) {
	h := http.Header{}
	detourHeaders(h, answer{id: "d", route: "r", target: "t", provider: "p", attempts: 2, class: "timeout"})
	h.Add("X-Detour-Decision", "extra")
	h.Add("X-Detour-Target", "extra")
	h.Set("X-Detour-Class", "server_error")
	h.Values("X-Detour-Route")[0] = "r2"
	want := map[string][]string{"X-Detour-Decision": {"d", "extra"}, "X-Detour-Route": {"r2"}, "X-Detour-Target": {"t", "extra"},
		"X-Detour-Provider": {"p"}, "X-Detour-Attempts": {"2"}, "X-Detour-Class": {"server_error"}, "Date": h.Values("Date"),
		"X-Request-Id": {"d"}, "Request-Id": {"d"}}
	h.Add("Date", "extra")
	h.Values("Date")[0] = "changed"
	other := http.Header{}
	detourHeaders(other, answer{id: "d2"})
	if got := other.Values("Date"); len(got) != 1 || got[0] == "extra" || got[0] == "changed" {
		t.Errorf("another answer's Date = %q after this one's was changed", got)
	}
	h.Del("Date")
	delete(want, "Date")
	for k, v := range want {
		if got := h.Values(k); strings.Join(got, "|") != strings.Join(v, "|") {
			t.Errorf("%s = %q, want %q", k, got, v)
		}
	}
	if len(h) != len(want) {
		t.Errorf("headers %v", h)
	}
}

// A Responses passthrough event's name and sequence_number come from one
// scan, read as encoding/json reads them: the last of a repeated member,
// escaped keys decoded, a name that is not plain left out.
func TestResponsesEvent(t *testing.T) {
	for _, c := range []struct {
		data, name string
		seq        int
		ok         bool
	}{
		{`{"type":"response.output_text.delta","sequence_number":7,"delta":"hi"}`, "response.output_text.delta", 7, true},
		{`{"type":"a","type":"b","sequence_number":1,"sequence_number":2}`, "b", 2, true},
		{`{"\u0074ype":"response.completed"}`, "response.completed", 0, false},
		{`{"type":"bad\nname","sequence_number":"3"}`, "", 0, false},
		{`[1]`, "", 0, false},
	} {
		h := readEvent([]byte(c.data))
		name, seq, ok := h.name, h.seq, h.hasSeq
		if string(name) != c.name || seq != c.seq || ok != c.ok {
			t.Errorf("%s: %q %d %v, want %q %d %v", c.data, name, seq, ok, c.name, c.seq, c.ok)
		}
	}
}

// Every answer carries a Date of the moment it leaves (net/http's format),
// set with the X-Detour-* headers: a whole answer, a stream, and answers a
// second apart each with its own second.
func TestAnswersCarryDate(t *testing.T) {
	check := func(what string, h http.Header) time.Time {
		t.Helper()
		v := h.Values("Date")
		if len(v) != 1 {
			t.Fatalf("%s: Date = %q, want one value", what, v)
		}
		d, err := http.ParseTime(v[0])
		if err != nil || v[0] != d.UTC().Format(http.TimeFormat) {
			t.Fatalf("%s: Date %q is not an IMF-fixdate (%v)", what, v[0], err)
		}
		if off := time.Since(d); off < -time.Second || off > 2*time.Second {
			t.Errorf("%s: Date %q is %v from now", what, v[0], off)
		}
		return d
	}
	h := http.Header{}
	detourHeaders(h, answer{id: "d", route: "r"})
	first := check("whole answer", h)
	srv := outputServer(t, time.Second, func(o *sseOutput, _ *http.Request) {
		if err := o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1}); err != nil {
			t.Errorf("Commit: %v", err)
		}
		_ = o.End()
	})
	resp, err := http.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	check("stream", resp.Header)
	time.Sleep(time.Until(first.Add(time.Second + 50*time.Millisecond)))
	h = http.Header{}
	detourHeaders(h, answer{id: "d", route: "r"})
	if later := check("a second later", h); !later.After(first) {
		t.Errorf("the Date a second later is %v, the first %v: the cached value went stale", later, first)
	}
}
