package decision

import (
	"bufio"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"sync"
	"sync/atomic"
	"time"
)

// Sink receives finished decisions.
type Sink interface {
	Write(d *Decision)
}

// Discard is a Sink that drops every decision.
var Discard Sink = discard{}

type discard struct{}

func (discard) Write(*Decision) {}

// Writer writes decisions as JSON lines from one background goroutine, so a
// slow disk never holds a request. It buffers and flushes at least every
// FlushEvery; Close flushes what is queued. Create it with NewWriter.
type Writer struct {
	ch     chan *Decision
	done   chan struct{}
	out    *bufio.Writer
	closer io.Closer
	log    *slog.Logger
	once   sync.Once
	// mu guards closed against Write racing Close.
	mu     sync.RWMutex
	closed bool
	// dropped counts records lost to a stalled output; lastWarn rate-limits
	// the log line about it.
	dropped  atomic.Int64
	lastWarn atomic.Int64
}

// FlushEvery bounds how long a written decision may sit in the buffer.
const FlushEvery = 200 * time.Millisecond

// Open returns a Writer for path: "-" is standard output, anything else a
// file opened for appending (created 0644).
func Open(path string, log *slog.Logger) (*Writer, error) {
	if path == "-" {
		return NewWriter(os.Stdout, nil, log), nil
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	return NewWriter(f, f, log), nil
}

// NewWriter writes to w; closer (may be nil) is closed by Close.
func NewWriter(w io.Writer, closer io.Closer, log *slog.Logger) *Writer {
	if log == nil {
		log = slog.Default()
	}
	s := &Writer{ch: make(chan *Decision, 4096), done: make(chan struct{}), out: bufio.NewWriterSize(w, 64<<10), closer: closer, log: log}
	go s.loop()
	return s
}

// Write queues d. It never blocks a request: when 4096 decisions are
// already queued (the output is stalled, e.g. a pipe nobody reads), d is
// dropped, counted, and the drops are logged at most every 10s.
func (s *Writer) Write(d *Decision) {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed { // a request that outlived the shutdown's grace period
		s.dropped.Add(1)
		return
	}
	select {
	case s.ch <- d:
	default:
		n := s.dropped.Add(1)
		now := time.Now().UnixNano()
		last := s.lastWarn.Load()
		if now-last >= int64(10*time.Second) && s.lastWarn.CompareAndSwap(last, now) {
			s.log.Warn("decision log: output stalled, records dropped", "dropped_total", n)
		}
	}
}

// Dropped returns how many decisions were dropped because the output stalled.
func (s *Writer) Dropped() int64 { return s.dropped.Load() }

func (s *Writer) loop() {
	defer close(s.done)
	enc := json.NewEncoder(s.out)
	tick := time.NewTicker(FlushEvery)
	defer tick.Stop()
	for {
		select {
		case d, ok := <-s.ch:
			if !ok {
				s.flush()
				return
			}
			if err := enc.Encode(d); err != nil {
				s.log.Error("decision log: write failed", "err", err)
			}
		case <-tick.C:
			s.flush()
		}
	}
}

func (s *Writer) flush() {
	if err := s.out.Flush(); err != nil {
		s.log.Error("decision log: flush failed", "err", err)
	}
}

// Close writes every queued decision, flushes, and closes the file. A Write
// after Close (a handler that outlived the shutdown) is dropped and counted.
func (s *Writer) Close() error {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		close(s.ch)
		s.mu.Unlock()
	})
	<-s.done
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}
