package app

import (
	"bytes"
	"compress/gzip"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"
)

// spentCache keeps what logSpent last read of each decision log file, so
// a later read (the epoch check) reads only what was appended since:
// review 38c's storm of 600 reloads, each giving a budget to a key the one
// before did not have, read the whole month's log each time, and took
// minutes (such a reload now reads only what ended before the start, once
// a day: budgetreload.go). A file that is no longer the same file
// (rotated, replaced), shrank, or is read for another month or day is read
// again from the start. The zero value is ready to use.
type spentCache struct {
	// until, when not zero, leaves out the records of requests that ended
	// at or after it.
	until time.Time
	mu    sync.Mutex
	files map[string]spentFile
}

// spentFile is what was read of one file: through end (the offset after
// its last whole line; a compressed file is read whole or not at all), for
// month and day, as of info; tail is the bytes just before end, which must
// still be there for what follows to be the same file's continuation.
type spentFile struct {
	info       os.FileInfo
	month, day time.Time
	end        int64
	tail       []byte
	spent      map[string][2]float64
}

// tailLen is how much of what was read is checked again before reading on:
// a file truncated in place and written again (logrotate's copytruncate,
// an operator's `: > decisions.jsonl`) is the same file, grown past end
// again, but holds other bytes there (review 58: its old spend was counted
// beside its copy's, and its new records read from the middle).
const tailLen = 64

// same reports whether f still holds e.tail just before e.end.
func (e *spentFile) same(f *os.File) bool {
	if int64(len(e.tail)) > e.end {
		return false
	}
	b := make([]byte, len(e.tail))
	_, err := f.ReadAt(b, e.end-int64(len(b)))
	return err == nil && bytes.Equal(b, e.tail)
}

// tailOf is the tailLen bytes of f before end (fewer at its start).
func tailOf(f *os.File, end int64) []byte {
	b := make([]byte, min(end, tailLen))
	if _, err := f.ReadAt(b, end-int64(len(b))); err != nil {
		return nil
	}
	return b
}

// add adds to spent what the log file at path (gzip-compressed when its
// name ends in .gz) says each client spent from month on ([0] from day on).
func (c *spentCache) add(spent map[string][2]float64, path string, month, day time.Time) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	c.mu.Lock()
	e, ok := c.files[path]
	c.mu.Unlock()
	ok = ok && os.SameFile(e.info, st) && e.month.Equal(month) && e.day.Equal(day)
	gz := strings.HasSuffix(path, ".gz")
	switch {
	case gz && ok && st.Size() == e.info.Size() && st.ModTime().Equal(e.info.ModTime()):
		// unchanged
	case gz:
		zr, err := gzip.NewReader(f)
		if err != nil {
			return err
		}
		defer zr.Close()
		got, _ := spentFrom(zr, month, day, c.until, true)
		e = spentFile{info: st, month: month, day: day, spent: got}
	case ok && st.Size() >= e.end && e.same(f):
		if _, err := f.Seek(e.end, io.SeekStart); err != nil {
			return err
		}
		got, n := spentFrom(f, month, day, c.until, false)
		e.spent = maps.Clone(e.spent)
		addAll(e.spent, got)
		e.end += n
		e.info = st
		e.tail = tailOf(f, e.end)
	default:
		start := seekTime(f, month.Add(-24*time.Hour)) // records are appended nearly in time order
		if _, err := f.Seek(start, io.SeekStart); err != nil {
			return err
		}
		got, n := spentFrom(f, month, day, c.until, false)
		e = spentFile{info: st, month: month, day: day, end: start + n, spent: got, tail: tailOf(f, start+n)}
	}
	c.mu.Lock()
	if c.files == nil {
		c.files = map[string]spentFile{}
	}
	c.files[path] = e
	c.mu.Unlock()
	addAll(spent, e.spent)
	return nil
}

// keep forgets the files not in paths (rotated away, or last month's).
func (c *spentCache) keep(paths []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for p := range c.files {
		if !slices.Contains(paths, p) {
			delete(c.files, p)
		}
	}
}

// addAll adds each client's spend in from to to.
func addAll(to, from map[string][2]float64) {
	for name, s := range from {
		t := to[name]
		t[0] += s[0]
		t[1] += s[1]
		to[name] = t
	}
}
