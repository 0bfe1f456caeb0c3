package server_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/detour-llm/detour/internal/app"
	"github.com/detour-llm/detour/internal/decision"
	"github.com/detour-llm/detour/internal/gatewaytest"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// streamGateway serves one openai-dialect target whose provider is h, and
// returns the gateway's base URL.
func streamGateway(t *testing.T, h http.HandlerFunc) string {
	t.Helper()
	up := httptest.NewServer(h)
	t.Cleanup(up.Close)
	url, _ := gatewaytest.Start(t, gatewaytest.Config(t, `
providers:
  - {name: p, dialect: openai, base_url: "`+up.URL+`", api_key: sk-test}
targets:
  - {name: a, model: m, providers: [p]}
`), app.Options{Decisions: decision.Discard})
	return url
}

const streamRequest = `{"model":"a","stream":true,"messages":[{"role":"user","content":"hi"}]}`

// A burst of events that reached Detour together leaves in a few writes to
// the client, not one write (and one HTTP/1.1 chunk) per event: Detour
// flushes what it wrote before it waits for the upstream, as a plain
// reverse proxy flushes once per read (docs/design.md, "Streams").
func TestStreamBurstLeavesInFewWrites(t *testing.T) {
	parts := make([]string, 40)
	for i := range parts {
		parts[i] = fmt.Sprintf("w%d ", i)
	}
	events := upstreamtest.ChatStream("m", parts...)
	var burst strings.Builder
	for _, e := range events {
		burst.WriteString("data: " + e + "\n\n")
	}
	gw := streamGateway(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, burst.String()) // the whole stream in one write
	})
	host := strings.TrimPrefix(gw, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
		host, len(streamRequest), streamRequest)
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || len(resp.TransferEncoding) == 0 {
		t.Fatalf("status %d, transfer encoding %v: want a chunked 200", resp.StatusCode, resp.TransferEncoding)
	}
	// Read the chunked body by hand: every chunk is one flush (or one full
	// buffer) of the gateway.
	chunks, body := 0, ""
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("after %d chunks: %v", chunks, err)
		}
		n, err := strconv.ParseInt(strings.TrimSpace(line), 16, 64)
		if err != nil {
			t.Fatalf("chunk size %q: %v", line, err)
		}
		if n == 0 {
			break
		}
		chunks++
		b := make([]byte, n+2)
		if _, err := io.ReadFull(br, b); err != nil {
			t.Fatal(err)
		}
		body += string(b[:n])
	}
	if got := strings.Count(body, `"content":"w`); got != len(parts) {
		t.Fatalf("the client got %d of the %d content events:\n%s", got, len(parts), body)
	}
	if !strings.HasSuffix(body, "data: [DONE]\n\n") {
		t.Fatalf("the stream did not end with [DONE]:\n%s", body)
	}
	t.Logf("%d events that came in one burst left in %d writes", len(events), chunks)
	if chunks > len(events)/4 {
		t.Errorf("%d events that came in one burst left in %d writes: want at most %d", len(events), chunks, len(events)/4)
	}
}

// Batching never holds an event back while the upstream is quiet: the
// client has each event before the upstream sends the next one.
func TestStreamEventNotHeldWhileUpstreamWaits(t *testing.T) {
	events := upstreamtest.ChatStream("m", "first ", "second ")
	seen := make(chan struct{})
	gw := streamGateway(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for i, e := range events {
			io.WriteString(w, "data: "+e+"\n\n")
			w.(http.Flusher).Flush()
			if i == 1 { // the first content: wait until the client has it
				select {
				case <-seen:
				case <-time.After(5 * time.Second):
					t.Errorf("the client did not get the first content while the upstream waited")
					return
				}
			}
		}
		io.WriteString(w, "data: [DONE]\n\n")
	})
	resp, err := http.Post(gw+"/v1/chat/completions", "application/json", strings.NewReader(streamRequest))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	got := []string{}
	for sc.Scan() {
		if l := sc.Text(); l != "" {
			got = append(got, l)
			if strings.Contains(l, `"first "`) {
				close(seen)
			}
		}
	}
	if len(got) == 0 || got[len(got)-1] != "data: [DONE]" {
		t.Fatalf("stream: %q", got)
	}
}
