package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	_ "net/http/pprof" // -pprof: the plain proxy's profiles, beside detour's
	"net/url"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/detour-llm/detour/internal/upstreamtest"
)

const (
	model = "gpt-4o-mini"
	// chatBody is the client's request: a short chat, as most are (the
	// same as bench/setup_test.go's).
	chatBody    = `{"model":"gpt","messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hello in five words."}]}`
	streamBody  = `{"model":"gpt","stream":true,"messages":[{"role":"system","content":"You are terse."},{"role":"user","content":"Say hello in five words."}]}`
	streamParts = 15 // 19 events in all, with role, finish, usage and [DONE]
)

// listen opens a loopback listener and prints its address as the first line
// of output (the parent reads it).
func listen() net.Listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "overhead:", err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().String())
	return ln
}

// freeAddr returns a loopback address free a moment ago.
func freeAddr() string {
	ln := must(net.Listen("tcp", "127.0.0.1:0"))
	defer ln.Close()
	return ln.Addr().String()
}

// serveFake is the upstream: a fixed chat.completion for any POST, or, for
// a body asking to stream, a fixed chat.completion.chunk stream with delay
// before each event. It records nothing (upstreamtest.Server keeps every
// request, which a long run must not) but how many POSTs came over each
// protocol, which GET /proto reports. With cert and key it serves TLS and
// offers HTTP/2 (net/http's server negotiates it by ALPN).
func serveFake(delay time.Duration, cert, key string) {
	var h1, h2, conns atomic.Int64
	answer := []byte(upstreamtest.ChatJSON(model, "Hello there, nice to meet."))
	parts := make([]string, streamParts)
	for i := range parts {
		parts[i] = fmt.Sprintf("word%d ", i)
	}
	var events [][]byte
	for _, e := range upstreamtest.ChatStream(model, parts...) {
		events = append(events, []byte("data: "+e+"\n\n"))
	}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet && r.URL.Path == "/proto" {
			fmt.Fprintf(w, "%d over HTTP/2, %d over HTTP/1.x, on %d connections (this one included)\n", h2.Load(), h1.Load(), conns.Load())
			return
		}
		if r.ProtoMajor == 2 {
			h2.Add(1)
		} else {
			h1.Add(1)
		}
		body, err := io.ReadAll(r.Body)
		if err != nil {
			return
		}
		if !strings.Contains(string(body), `"stream":true`) {
			w.Header().Set("Content-Type", "application/json")
			w.Write(answer)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Cache-Control", "no-cache")
		w.WriteHeader(http.StatusOK)
		f := w.(http.Flusher)
		f.Flush()
		for _, e := range events {
			if delay > 0 {
				select {
				case <-time.After(delay):
				case <-r.Context().Done():
					return
				}
			}
			if _, err := w.Write(e); err != nil {
				return
			}
			f.Flush()
		}
	})
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second,
		ConnState: func(_ net.Conn, s http.ConnState) {
			if s == http.StateNew {
				conns.Add(1)
			}
		}}
	if cert != "" {
		_ = srv.ServeTLS(listen(), cert, key)
		return
	}
	_ = srv.Serve(listen())
}

// servePlain is the floor: httputil.ReverseProxy with a transport sized
// like Detour's (keep-alive, enough idle connections for the load, HTTP/2
// when TLS offers it, as internal/dispatch's newClient), and nothing else.
// It trusts the fake's certificate through SSL_CERT_FILE, as detour does.
// With pprofAddr it serves net/http/pprof there, for -pprof's side-by-side
// CPU profiles.
func servePlain(upstream, pprofAddr string) {
	if pprofAddr != "" {
		ln := must(net.Listen("tcp", pprofAddr))
		go http.Serve(ln, nil) //nolint:errcheck // lives as long as the process
	}
	u := must(url.Parse(upstream))
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.Transport = &http.Transport{
		Proxy: nil, MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second,
		ForceAttemptHTTP2: true, TLSHandshakeTimeout: 5 * time.Second,
		DialContext: (&net.Dialer{Timeout: 5 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
	}
	rp.FlushInterval = -1 // flush every write, as a streaming proxy must
	srv := &http.Server{Handler: rp, ReadHeaderTimeout: 10 * time.Second}
	_ = srv.Serve(listen())
}
