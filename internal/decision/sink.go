package decision

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Sink receives finished decisions.
type Sink interface {
	Write(d *Decision)
}

// Discard is a Sink that drops every decision.
var Discard Sink = discard{}

type discard struct{}

func (discard) Write(*Decision) {}

// FlushEvery bounds how long a buffered decision may wait before it is
// written.
const FlushEvery = 200 * time.Millisecond

// bufferSize is how many bytes of whole records a buffered Writer gathers
// before it writes them.
const bufferSize = 64 << 10

// queueSize bounds the decisions waiting for the writer goroutine.
const queueSize = 4096

// Options adjust a Writer; the zero value buffers.
type Options struct {
	// Sync makes every Write wait until its record has been written and the
	// output synced (fsync): a request's record is on disk before its
	// response is sent. Without it records are gathered and written at
	// least every FlushEvery, and Write never waits.
	Sync bool
	// Logger; nil means slog.Default().
	Logger *slog.Logger
}

// Writer writes decisions as JSON lines from one background goroutine.
// Every write(2) it makes holds whole lines only, so a crash can cut at
// most the last line it was writing, never run two records together.
// Create it with Open or NewWriter.
type Writer struct {
	ch chan queued
	// nudge wakes a buffered Writer's goroutine before its tick when the
	// queue is filling; quit ends it (Close).
	nudge  chan struct{}
	quit   chan struct{}
	done   chan struct{}
	out    io.Writer
	closer io.Closer
	sync   bool
	log    *slog.Logger
	once   sync.Once
	// mu guards closed against Write racing Close.
	mu     sync.RWMutex
	closed bool
	// Owned by the writer goroutine: whole records not yet written, and
	// the Writes waiting for them.
	pending []byte
	scratch []byte // add encodes each record here (appendJSON)
	cut     bool   // the last write failed inside a line (flush)
	waiting []chan struct{}
	// dropped counts records lost to a stalled output; the warn times
	// rate-limit the log lines about drops and failed syncs.
	dropped      atomic.Int64
	writing      atomic.Int64 // records in the write being made (CloseContext counts them when it gives up)
	parked       atomic.Int64 // sync Writes waiting for room in the queue (counted so too)
	gaveUp       atomic.Bool  // CloseContext has counted what it lost
	closing      atomic.Bool  // CloseContext has begun: a Write is dropped and counted
	lastDropWarn atomic.Int64
	lastSyncWarn time.Time
	// path is the file Open opened, for Reopen ("" for another output);
	// reopen carries Reopen's requests to the writer goroutine, which owns
	// out and closer.
	path   string
	opts   Options
	reopen chan chan error
}

// Synced reports whether each record is on disk before Write returns
// (Options.Sync): a caller that promises a record for every answer writes
// it before the answer.
func (w *Writer) Synced() bool { return w.sync }

type queued struct {
	d    *Decision
	done chan struct{} // closed once d is written (Sync only)
}

// Open returns a Writer for path: "-" is standard output, anything else a
// file opened for appending (created 0644). A file whose last line was cut
// short (a crash in the middle of a write) first gets a newline, so the next
// record starts on a line of its own; the cut line stays, as evidence, and
// is not valid JSON: readers skip it.
func Open(path string, o Options) (*Writer, error) {
	if path == "-" {
		return NewWriter(os.Stdout, nil, o), nil
	}
	_, statErr := os.Stat(path)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	if err := endLine(f); err != nil {
		f.Close()
		return nil, err
	}
	if o.Sync && os.IsNotExist(statErr) {
		// The new file's directory entry must survive a power loss too.
		if d, err := os.Open(filepath.Dir(path)); err == nil {
			_ = d.Sync()
			d.Close()
		}
	}
	w := NewWriter(f, f, o)
	w.path, w.opts = path, o
	return w, nil
}

// Reopen opens the log's path again, when it no longer names the file
// being written (a log rotated by moving it away: logrotate's create
// mode, then SIGHUP): what is queued goes to the old file first, later
// records to the new one. A path that still names the same file, or an
// output that is no file, is left as it is. The writer goroutine does the
// swap, so no record is split between the two.
func (s *Writer) Reopen() error {
	if s.path == "" {
		return nil
	}
	s.mu.RLock()
	closed := s.closed
	s.mu.RUnlock()
	if closed {
		return nil
	}
	// The writer goroutine may be stuck in a write that never returns (a
	// pipe nobody reads, a hung mount): the reload that follows a Reopen
	// must not wait for it (hostile 54: SIGHUP then never reloaded again).
	stalled := time.NewTimer(ReopenWait)
	defer stalled.Stop()
	done := make(chan error, 1)
	select {
	case s.reopen <- done:
	case <-s.done:
		return nil
	case <-stalled.C:
		return ErrStalled
	}
	select {
	case err := <-done:
		return err
	case <-stalled.C:
		return ErrStalled
	}
}

// ReopenWait bounds how long Reopen waits for the writer goroutine.
const ReopenWait = 2 * time.Second

// ErrStalled is Reopen's and CloseContext's error when the output has not
// taken a write for longer than they wait.
var ErrStalled = errors.New("the decision log's output is stalled: a write has not returned")

// swap is Reopen's work, on the writer goroutine.
func (s *Writer) swap() error {
	s.drain()
	s.flush()
	cur, ok := s.out.(*os.File)
	if !ok {
		return nil
	}
	if a, err1 := cur.Stat(); err1 == nil {
		if b, err2 := os.Stat(s.path); err2 == nil && os.SameFile(a, b) {
			return nil // not moved: nothing to do
		}
	}
	f, err := os.OpenFile(s.path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	if err := endLine(f); err != nil {
		f.Close()
		return err
	}
	old := s.closer
	s.out, s.closer = f, f
	if old != nil {
		return old.Close()
	}
	return nil
}

// endLine appends a newline to f unless it is empty or ends with one.
func endLine(f *os.File) error {
	fi, err := f.Stat()
	if err != nil || fi.Size() == 0 {
		return err
	}
	last := make([]byte, 1)
	if _, err := f.ReadAt(last, fi.Size()-1); err != nil {
		return err
	}
	if last[0] == '\n' {
		return nil
	}
	_, err = f.Write([]byte{'\n'})
	return err
}

// NewWriter writes to w; closer (may be nil) is closed by Close. With
// o.Sync, w is synced after each write when it has a Sync() error method
// (an *os.File does; a pipe's fails and is ignored).
func NewWriter(w io.Writer, closer io.Closer, o Options) *Writer {
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	s := &Writer{ch: make(chan queued, queueSize), nudge: make(chan struct{}, 1), quit: make(chan struct{}),
		done: make(chan struct{}), out: w, closer: closer, sync: o.Sync, log: o.Logger, reopen: make(chan chan error)}
	go s.loop()
	return s
}

// Write queues d. Without Sync it never blocks a request: when 4096
// decisions are already queued (the output is stalled, e.g. a pipe nobody
// reads), d is dropped, counted, and the drops are logged at most every 10s.
// With Sync it returns once d is written and synced (a stalled output
// stalls the request: that is the price of losing nothing).
func (s *Writer) Write(d *Decision) {
	var done chan struct{}
	if s.sync {
		done = make(chan struct{})
	}
	if s.closing.Load() { // never behind a close's lock, which parked Writes may hold off for good (review 54c)
		s.dropped.Add(1)
		return
	}
	s.mu.RLock()
	if s.closed { // a request that outlived the shutdown's grace period
		s.mu.RUnlock()
		s.dropped.Add(1)
		return
	}
	if s.sync {
		s.parked.Add(1) // until the queue takes it: a close that gives up counts it (hostile 54c)
		s.ch <- queued{d, done}
		s.parked.Add(-1)
		s.mu.RUnlock()
		<-done
		return
	}
	defer s.mu.RUnlock()
	select {
	case s.ch <- queued{d: d}:
		if len(s.ch) >= nudgeAt {
			select {
			case s.nudge <- struct{}{}:
			default:
			}
		}
	default:
		n := s.dropped.Add(1)
		now := time.Now().UnixNano()
		last := s.lastDropWarn.Load()
		if now-last >= int64(10*time.Second) && s.lastDropWarn.CompareAndSwap(last, now) {
			s.log.Warn("decision log: output stalled, records dropped", "dropped_total", n)
		}
	}
}

// Dropped returns how many decisions were dropped: the output stalled, a
// write failed (a full disk), or they came after Close.
func (s *Writer) Dropped() int64 { return s.dropped.Load() }

// nudgeAt is the queue length at which a Write wakes a buffered Writer's
// goroutine before its tick: under load records are written every few
// dozen KiB, as when each was taken as it came, and a burst is not dropped
// while the goroutine sleeps; below it (a few hundred requests a second)
// the tick alone writes them.
const nudgeAt = 128

// loop writes the queued records: at once with Sync; otherwise every
// FlushEvery, or sooner when nudgeAt records wait (nudge), so that a record
// costs its request no wake-up of this goroutine (docs/benchmarks.md,
// "Round 5"). Either way a record is written within FlushEvery.
func (s *Writer) loop() {
	defer close(s.done)
	tick := time.NewTicker(FlushEvery)
	defer tick.Stop()
	if s.sync {
		s.loopSync(tick)
		return
	}
	for {
		select {
		case <-tick.C:
		case <-s.nudge:
		case <-s.quit:
		case done := <-s.reopen:
			done <- s.swap()
			continue
		}
		closed := s.drain()
		s.flush()
		if closed {
			return
		}
	}
}

// drain adds every queued record; it reports whether the queue is closed
// (and empty).
func (s *Writer) drain() (closed bool) {
	for {
		select {
		case q, ok := <-s.ch:
			if !ok {
				return true
			}
			s.add(q)
		default:
			return false
		}
	}
}

// loopSync writes and syncs each record, with whatever else is queued,
// as soon as it comes.
func (s *Writer) loopSync(tick *time.Ticker) {
	for {
		select {
		case q, ok := <-s.ch:
			if !ok {
				s.flush()
				return
			}
			s.add(q)
			// Whatever else is queued goes in the same write (and, with
			// Sync, the same fsync: a group commit).
			for more := true; more; {
				select {
				case q, ok := <-s.ch:
					if !ok {
						s.flush()
						return
					}
					s.add(q)
				default:
					more = false
				}
			}
			s.flush()
		case <-tick.C:
			s.flush()
		case done := <-s.reopen:
			done <- s.swap()
		}
	}
}

// add appends q's record, as one line, to the pending bytes; a buffered
// Writer first writes what is pending when the record would overflow it.
func (s *Writer) add(q queued) {
	b, ok := appendJSON(s.scratch[:0], q.d)
	var err error
	if ok {
		s.scratch = b[:0]
	} else {
		b, err = json.Marshal(q.d)
	}
	if err != nil {
		s.log.Error("decision log: cannot encode a record", "err", err)
	} else {
		if !s.sync && len(s.pending) > 0 && len(s.pending)+len(b)+1 > bufferSize {
			s.flush()
		}
		// Invisible characters an upstream or a client wrote are escaped
		// (hostile 56: U+202E reordered the line in a terminal).
		s.pending = append(rawjson.AppendVisible(s.pending, b), '\n')
	}
	if q.done != nil {
		s.waiting = append(s.waiting, q.done)
	}
}

// flush writes the pending records in one write, syncs with Sync, and
// releases the Writes waiting for them.
func (s *Writer) flush() {
	if len(s.pending) > 0 {
		lead := 0
		if s.cut { // the last write stopped inside a line: end it first
			s.pending = append([]byte{'\n'}, s.pending...)
			lead = 1
		}
		s.writing.Store(int64(bytes.Count(s.pending[lead:], []byte{'\n'})))
		n, err := s.out.Write(s.pending)
		s.writing.Store(0)
		if err != nil {
			// A full disk writes what fits, then fails (hostile 54): the
			// records not written whole are lost, and counted; a cut line
			// is ended before the next record, never joined to it.
			lost := bytes.Count(s.pending[max(n, lead):], []byte{'\n'})
			s.dropped.Add(int64(lost))
			s.cut = n > 0 && s.pending[n-1] != '\n' || s.cut && n == 0
			s.log.Error("decision log: write failed", "err", err, "records_lost", lost)
		} else {
			s.cut = false
			if s.sync {
				s.syncOut()
			}
		}
		s.pending = s.pending[:0]
	}
	for _, w := range s.waiting {
		close(w)
	}
	s.waiting = s.waiting[:0]
}

func (s *Writer) syncOut() {
	f, ok := s.out.(interface{ Sync() error })
	if !ok {
		return
	}
	err := f.Sync()
	if err == nil || errors.Is(err, syscall.EINVAL) || errors.Is(err, syscall.ENOTSUP) {
		return // a pipe or terminal: nothing to sync
	}
	if now := time.Now(); now.Sub(s.lastSyncWarn) >= 10*time.Second {
		s.lastSyncWarn = now
		s.log.Error("decision log: sync failed", "err", err)
	}
}

// Close writes every queued decision, flushes, and closes the file. A Write
// after Close (a handler that outlived the shutdown) is dropped and counted.
func (s *Writer) Close() error { return s.CloseContext(context.Background()) }

// CloseContext is Close that stops waiting when ctx ends: an output stalled
// in a write that never returns (a pipe nobody reads, a hung mount) must
// not keep the process from exiting (hostile 54: SIGTERM waited for ever).
// It then returns ErrStalled, the records still queued counted as dropped,
// and leaves the file open.
func (s *Writer) CloseContext(ctx context.Context) error {
	// The lock is taken aside: with Sync, Writes parked in their send to a
	// full queue hold its read side for as long as the output is stalled
	// (review 54b: SIGTERM then waited for ever).
	s.closing.Store(true)
	closing := make(chan struct{})
	go func() {
		s.once.Do(func() {
			s.mu.Lock()
			s.closed = true
			close(s.ch)
			close(s.quit)
			s.mu.Unlock()
		})
		close(closing)
	}()
	select {
	case <-s.done:
	case <-ctx.Done():
		// Lost: what is queued, what the stalled write holds (review 54b:
		// that write's records went uncounted) and the sync Writes parked
		// for room in the queue.
		if s.gaveUp.CompareAndSwap(false, true) { // counted once, however often it gives up (hostile 54c)
			s.dropped.Add(int64(len(s.ch)) + s.writing.Load() + s.parked.Load())
		}
		return ErrStalled
	}
	<-closing
	if s.closer != nil {
		return s.closer.Close()
	}
	return nil
}
