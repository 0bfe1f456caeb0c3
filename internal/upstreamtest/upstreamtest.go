package upstreamtest

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Step is one scripted answer.
type Step struct {
	Status int               // 0 means 200
	Header map[string]string // extra response headers
	Body   string            // the body of a plain answer
	// Events, when set, make a text/event-stream answer: each entry is one
	// event, written as "data: <entry>\n\n" unless it already starts with
	// "event:" or "data:" (then written as is, plus the blank line).
	Events []string
	// Delay is waited before the headers are written.
	Delay time.Duration
	// EventDelay is waited before each event.
	EventDelay time.Duration
	// Cut closes the connection abruptly after the events (no clean end).
	Cut bool
	// Stall holds the connection open after the events until the client leaves.
	Stall bool
}

// Script chooses the answer to the n-th call (n counts from 1) from the
// request as received.
type Script func(n int, r Request) Step

// Steps answers the n-th call with steps[n-1]; the last step repeats.
func Steps(steps ...Step) Script {
	return func(n int, _ Request) Step {
		if n > len(steps) {
			n = len(steps)
		}
		return steps[n-1]
	}
}

// Request is one request the fake received.
type Request struct {
	Method string
	Path   string
	Query  string
	Header http.Header
	Body   []byte
}

// Server is a fake provider on a loopback port.
type Server struct {
	*httptest.Server
	mu     sync.Mutex
	script Script
	reqs   []Request
	gone   int
}

// New starts a fake provider answering with script.
func New(script Script) *Server {
	s := &Server{script: script}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	return s
}

// SetScript replaces the script (calls keep counting).
func (s *Server) SetScript(script Script) {
	s.mu.Lock()
	s.script = script
	s.mu.Unlock()
}

// Calls returns how many requests arrived.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.reqs)
}

// Gone returns how many requests the client abandoned before their scripted
// answer was complete (during a Delay, an EventDelay or a Stall).
func (s *Server) Gone() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.gone
}

func (s *Server) leave() {
	s.mu.Lock()
	s.gone++
	s.mu.Unlock()
}

// Streamed reports whether the request asked for a stream.
func (r Request) Streamed() bool {
	var v struct {
		Stream bool `json:"stream"`
	}
	_ = json.Unmarshal(r.Body, &v)
	return v.Stream || strings.Contains(r.Path, "streamGenerateContent")
}

// Requests returns a copy of every request received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.reqs...)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	s.mu.Lock()
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: body}
	s.reqs = append(s.reqs, req)
	n, script := len(s.reqs), s.script
	s.mu.Unlock()
	st := script(n, req)
	if !sleep(r, st.Delay) {
		s.leave()
		return
	}
	for k, v := range st.Header {
		w.Header().Set(k, v)
	}
	status := st.Status
	if status == 0 {
		status = http.StatusOK
	}
	if st.Events == nil {
		if w.Header().Get("Content-Type") == "" {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, st.Body)
		if st.Cut {
			cut(w)
		}
		return
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "text/event-stream")
	}
	w.WriteHeader(status)
	flush(w)
	for _, ev := range st.Events {
		if !sleep(r, st.EventDelay) {
			s.leave()
			return
		}
		if strings.HasPrefix(ev, "event:") || strings.HasPrefix(ev, "data:") || strings.HasPrefix(ev, ":") {
			io.WriteString(w, strings.TrimRight(ev, "\n")+"\n\n")
		} else {
			fmt.Fprintf(w, "data: %s\n\n", ev)
		}
		flush(w)
	}
	switch {
	case st.Cut:
		cut(w)
	case st.Stall:
		<-r.Context().Done()
		s.leave()
	}
}

func sleep(r *http.Request, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}

func flush(w http.ResponseWriter) {
	_ = http.NewResponseController(w).Flush()
}

// cut drops the connection without ending the response cleanly.
func cut(w http.ResponseWriter) {
	flush(w)
	conn, _, err := http.NewResponseController(w).Hijack()
	if err == nil {
		conn.Close()
		return
	}
	panic(http.ErrAbortHandler)
}
