package main

import (
	"bufio"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"strings"
)

// logFiles is a repeatable -f: decision logs read one after another, in
// the order given ("-" is stdin), so a month's rotations are read at once
// (`-f decisions.jsonl.3.gz -f decisions.jsonl.2.gz -f decisions.jsonl.1
// -f decisions.jsonl`).
type logFiles struct {
	paths []string
	set   bool // given at least once: the default is replaced, not added to
}

func (l *logFiles) String() string { return strings.Join(l.paths, ", ") }

func (l *logFiles) Set(v string) error {
	if !l.set {
		l.paths, l.set = nil, true
	}
	l.paths = append(l.paths, v)
	return nil
}

// eachLog calls fn with each log at paths in turn ("-" is stdin), read as
// gzip when it is compressed (logrotate's compress, which serve reads
// back for budgets too: operator review 52b found `detour usage` summing a
// .gz rotation as one bad line, exit 0). Each is read apart, so a log cut
// mid-line loses no record of the next (review 52b), and a bad line is
// told by its own file's line number.
func eachLog(paths []string, stdin io.Reader, fn func(name string, r io.Reader) error) error {
	for _, p := range paths {
		if err := readLog(p, stdin, fn); err != nil {
			return err
		}
	}
	return nil
}

func readLog(p string, stdin io.Reader, fn func(name string, r io.Reader) error) error {
	r, c, err := openLog(p, stdin)
	if err != nil {
		return err
	}
	defer c.Close()
	return fn(p, r)
}

// openLog opens the log at p ("-" is stdin, closed by nothing), inflated
// when it is compressed.
func openLog(p string, stdin io.Reader) (io.Reader, io.Closer, error) {
	var r io.Reader = stdin
	var c io.Closer = io.NopCloser(nil)
	if p != "-" {
		f, err := os.Open(p)
		if err != nil {
			return nil, nil, err
		}
		r, c = f, f
	}
	r, err := maybeGzip(r)
	if err != nil {
		c.Close()
		return nil, nil, errors.New(p + ": " + err.Error())
	}
	return r, c, nil
}

// openLogs returns the logs at paths as one stream, read as eachLog reads
// them, a newline after each (a log cut mid-line runs on into no other),
// and a function that closes them.
func openLogs(paths []string, stdin io.Reader) (io.Reader, func(), error) {
	var readers []io.Reader
	var closers []io.Closer
	closeAll := func() {
		for _, c := range closers {
			c.Close()
		}
	}
	for _, p := range paths {
		r, c, err := openLog(p, stdin)
		if err != nil {
			closeAll()
			return nil, nil, err
		}
		closers = append(closers, c)
		readers = append(readers, r, strings.NewReader("\n"))
	}
	return io.MultiReader(readers...), closeAll, nil
}

// maybeGzip is r, inflated when it starts with gzip's magic bytes.
func maybeGzip(r io.Reader) (io.Reader, error) {
	br := bufio.NewReader(r)
	head, _ := br.Peek(2)
	if len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, err
		}
		zr.Multistream(true)
		return zr, nil
	}
	return br, nil
}
