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

// Visit receives one record and its line as read (without the newline).
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

// reader turns bytes into records, line by line, keeping a line that has
// not ended yet for the next bytes.
type reader struct {
	line    int
	partial []byte
	visit   Visit
	bad     func(*BadLine)
}

func (r *reader) feed(b []byte) error {
	r.partial = append(r.partial, b...)
	for {
		i := bytes.IndexByte(r.partial, '\n')
		if i < 0 {
			return nil
		}
		if err := r.one(r.partial[:i]); err != nil {
			return err
		}
		r.partial = r.partial[i+1:]
	}
}

func (r *reader) one(line []byte) error {
	r.line++
	line = bytes.TrimRight(line, "\r")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	var d decision.Decision
	if err := json.Unmarshal(line, &d); err != nil {
		r.bad(&BadLine{Line: r.line, Err: err})
		return nil
	}
	if d.ID == "" || d.Time.IsZero() {
		r.bad(&BadLine{Line: r.line, Err: errors.New(`no "id" or "time"`)})
		return nil
	}
	return r.visit(&d, line)
}

// Scan reads JSON lines from in to the end, handing each record to visit and
// each line that is not a record to bad. A last line without a newline is
// read too. An error from visit stops the scan and is returned.
func Scan(in io.Reader, visit Visit, bad func(*BadLine)) error {
	r := &reader{visit: visit, bad: bad}
	buf := make([]byte, 64<<10)
	for {
		n, err := in.Read(buf)
		if ferr := r.feed(buf[:n]); ferr != nil {
			return ferr
		}
		if err == io.EOF {
			if len(r.partial) > 0 {
				return r.one(r.partial)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
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
			f, off, r.partial = nf, 0, nil
			continue
		}
		if st.Size() < off { // truncated
			off, r.partial = 0, nil
		}
	}
}
