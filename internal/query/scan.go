package query

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/detour-llm/detour/internal/decision"
)

// Visit receives one record and its line as read (without the newline),
// valid until Visit returns.
type Visit func(d *decision.Decision, line []byte) error

// BadLine is a line that is not a decision record: it is reported, never
// dropped silently, and reading goes on.
type BadLine struct {
	Line int
	Err  error
}

func (e *BadLine) Error() string {
	return fmt.Sprintf("line %d: not a decision record: %v", e.Line, e.Err)
}

// MaxLine bounds the line a reader holds: a longer one is not a record
// (no record is near it), and is reported and skipped in bounded memory
// (hostile 54: one line of 17 MiB stopped `detour usage` with no table,
// and reading a 128 MiB line took 15 s).
const MaxLine = 16 << 20

// ErrLongLine is the error a line longer than MaxLine is reported with.
var ErrLongLine = fmt.Errorf("longer than %d MiB", MaxLine>>20)

// splitter cuts bytes into lines, keeping a line that has not ended yet
// for the next bytes. Each byte is looked at once.
type splitter struct {
	n       int // lines so far
	partial []byte
	long    bool // the line being read passed MaxLine: its rest is skipped
}

// feed hands each line b ends to fn (line valid until fn returns; err is
// ErrLongLine, with no line, for one past MaxLine).
func (s *splitter) feed(b []byte, fn func(n int, line []byte, err error) error) error {
	for len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			s.keep(b)
			return nil
		}
		if err := s.end(b[:i], fn); err != nil {
			return err
		}
		b = b[i+1:]
	}
	return nil
}

func (s *splitter) keep(b []byte) {
	if s.long {
		return
	}
	if len(s.partial)+len(b) > MaxLine {
		s.long, s.partial = true, s.partial[:0]
		return
	}
	s.partial = append(s.partial, b...)
}

// end ends the line whose last bytes are tail.
func (s *splitter) end(tail []byte, fn func(n int, line []byte, err error) error) error {
	s.n++
	line := tail // the usual case: nothing was kept
	if len(s.partial) > 0 || s.long {
		if s.keep(tail); s.long {
			s.long, s.partial = false, s.partial[:0]
			return fn(s.n, nil, ErrLongLine)
		}
		line = s.partial
	}
	err := fn(s.n, line, nil)
	s.partial = s.partial[:0]
	return err
}

// flush ends a last line that has no newline, if any.
func (s *splitter) flush(fn func(n int, line []byte, err error) error) error {
	if len(s.partial) == 0 && !s.long {
		return nil
	}
	return s.end(nil, fn)
}

// Lines reads in to the end, handing fn each line (without its newline;
// valid until fn returns) with its number, or ErrLongLine for a line longer
// than MaxLine, which is skipped. A last line without a newline is read
// too. An error from fn stops it and is returned.
func Lines(in io.Reader, fn func(n int, line []byte, err error) error) error {
	var s splitter
	buf := make([]byte, 64<<10)
	for {
		n, err := in.Read(buf)
		if ferr := s.feed(buf[:n], fn); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			return s.flush(fn)
		}
		if err != nil {
			return err
		}
	}
}

// reader turns lines into records.
type reader struct {
	splitter
	visit Visit
	bad   func(*BadLine)
}

func (r *reader) feed(b []byte) error { return r.splitter.feed(b, r.line) }

func (r *reader) line(n int, line []byte, err error) error {
	if err != nil {
		r.bad(&BadLine{Line: n, Err: err})
		return nil
	}
	return r.one(n, line)
}

func (r *reader) one(n int, line []byte) error {
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	var d decision.Decision
	if err := json.Unmarshal(line, &d); err != nil {
		r.bad(&BadLine{Line: n, Err: err})
		return nil
	}
	if d.ID == "" || d.Time.IsZero() {
		r.bad(&BadLine{Line: n, Err: errors.New(`no "id" or "time"`)})
		return nil
	}
	return r.visit(&d, line)
}

// Scan reads JSON lines from in to the end, handing each record to visit and
// each line that is not a record to bad. A last line without a newline is
// read too. An error from visit stops the scan and is returned.
func Scan(in io.Reader, visit Visit, bad func(*BadLine)) error {
	r := &reader{visit: visit, bad: bad}
	return Lines(in, r.line)
}

// PollEvery is how often Follow looks for new lines.
const PollEvery = 250 * time.Millisecond

// Follow reads the file at path from the start and then keeps reading lines
// as they are appended, until ctx ends (then it returns nil). A file that
// is truncated is read again from its start; a file replaced by another
// (rotated) is read to its end and the new one from its start. A line is
// handed over only once it is complete.
func Follow(ctx context.Context, path string, visit Visit, bad func(*BadLine)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer func() { f.Close() }()
	r := &reader{visit: visit, bad: bad}
	var off int64
	buf := make([]byte, 64<<10)
	drain := func() error {
		for {
			n, err := f.ReadAt(buf, off)
			off += int64(n)
			if ferr := r.feed(buf[:n]); ferr != nil {
				return ferr
			}
			if err == io.EOF || n == 0 {
				return nil
			}
			if err != nil {
				return err
			}
		}
	}
	tick := time.NewTicker(PollEvery)
	defer tick.Stop()
	for {
		if err := drain(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-tick.C:
		}
		st, err := f.Stat()
		if err != nil {
			return err
		}
		if cur, err := os.Stat(path); err == nil && !os.SameFile(st, cur) {
			nf, err := os.Open(path)
			if err != nil {
				continue // between a rename and the new file: try again
			}
			if err := drain(); err != nil { // the old file's last lines
				nf.Close()
				return err
			}
			f.Close()
			f, off, r.splitter = nf, 0, splitter{}
			continue
		}
		if st.Size() < off { // truncated
			off, r.splitter = 0, splitter{}
		}
	}
}
