package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"sync"
)

// Event is one server-sent event. Data is the event's data lines joined by
// "\n"; Name is the `event:` field ("" when absent). Comments and `id:` or
// `retry:` fields are dropped: no LLM provider gives them meaning.
type Event struct {
	Name string
	Data []byte
}

// ErrLineTooLong is returned when one line exceeds the reader's limit.
var ErrLineTooLong = errors.New("sse: line too long")

// ErrEventTooLarge is returned when one event's data (all its data lines
// together, with the newlines that join them) exceeds the reader's limit:
// an upstream that never ends an event cannot grow memory without bound.
var ErrEventTooLarge = errors.New("sse: event too large")

// DefaultMaxLine bounds one line, and one event's data, of an upstream
// stream (16 MiB): an image or a fetched document streamed whole in one
// event (OpenRouter's image deltas, the Responses API's image_generation,
// Claude's web_fetch results) is megabytes of base64 (review 37b: 1 MiB cut
// such answers), and a hostile stream is still bounded. A buffer grown past
// keepBuffer is given back after its event.
const DefaultMaxLine = 16 << 20

// readBuffer is the Reader's own buffer. An upstream's events are a few
// hundred bytes and its body is already buffered by net/http, so 1 KiB
// suffices; a longer line is gathered in pieces. Every open stream holds one
// (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).
const readBuffer = 1 << 10

// Reader reads events from a text/event-stream. The zero value is not usable;
// call NewReader.
type Reader struct {
	br      *bufio.Reader
	maxLine int
	name    []byte
	data    []byte
	hasData bool
	line    []byte
	// skipLF: the last line ended in \r, so a \n right after it ends
	// nothing more.
	skipLF bool
	// begun: the stream's first bytes were looked at for a byte order mark.
	begun bool
}

// bom is the UTF-8 byte order mark the event-stream format ignores at the
// start of a stream (.NET's and some Java servers' writers add one).
const bom = "\xef\xbb\xbf"

// keepBuffer is the largest line or data buffer a Reader keeps between
// events; a larger one (an image streamed whole) is given back.
const keepBuffer = 64 << 10

// NewReader returns a Reader over r whose lines, and whose events' data, may
// be at most maxLine bytes (0 means DefaultMaxLine).
func NewReader(r io.Reader, maxLine int) *Reader {
	if maxLine <= 0 {
		maxLine = DefaultMaxLine
	}
	return &Reader{br: bufio.NewReaderSize(r, readBuffer), maxLine: maxLine}
}

// Next returns the next event. At the end of the stream it returns io.EOF; a
// final event not followed by a blank line is still returned first. The
// returned Data is valid until the next call.
func (r *Reader) Next() (Event, error) {
	if cap(r.data) > keepBuffer {
		r.data = nil
	}
	r.name = r.name[:0]
	r.data = r.data[:0]
	r.hasData = false
	for {
		line, err := r.readLine()
		if err != nil {
			if err == io.EOF && (r.hasData || len(r.name) > 0) {
				return r.event(), nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if r.hasData || len(r.name) > 0 {
				return r.event(), nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			if len(value) > 0 && value[0] == ' ' {
				value = value[1:]
			}
		}
		switch string(field) {
		case "data":
			n := len(r.data) + len(value)
			if r.hasData {
				n++
			}
			if n > r.maxLine {
				return Event{}, ErrEventTooLarge
			}
			if r.hasData {
				r.data = append(r.data, '\n')
			}
			r.data = append(r.data, value...)
			r.hasData = true
		case "event":
			r.name = append(r.name[:0], value...)
		}
	}
}

func (r *Reader) event() Event {
	return Event{Name: string(r.name), Data: r.data}
}

// readLine returns one line without its terminator: \n, \r\n, or a bare
// \r, which ends a line too in the SSE format. A reader that ended lines
// at \n only would take "data: a\rdata: [DONE]" for one data line while a
// client's parser reads two: what Detour classified and what the client
// saw would part. A line ending in \r is returned at once, without
// waiting for the byte after it (a \n then is the same terminator, and
// skipped when it comes): an upstream that ends its lines with bare CRs has
// its events read as they arrive (review 37b).
func (r *Reader) readLine() ([]byte, error) {
	if cap(r.line) > keepBuffer {
		r.line = nil // one large line does not stay held for the stream's life
	}
	r.line = r.line[:0]
	if !r.begun {
		r.begun = true
		if b, err := r.br.Peek(len(bom)); err == nil && string(b) == bom {
			r.br.Discard(len(bom))
		}
	}
	for {
		if r.skipLF {
			if b, err := r.br.Peek(1); err == nil && b[0] == '\n' {
				r.br.Discard(1)
			}
			r.skipLF = false
		}
		n := r.br.Buffered()
		if n == 0 {
			if _, err := r.br.Peek(1); err != nil {
				if err == io.EOF && len(r.line) > 0 {
					return r.line, nil
				}
				return nil, err
			}
			n = r.br.Buffered()
		}
		b, _ := r.br.Peek(n)
		end := bytes.IndexByte(b, '\n')
		if end < 0 {
			end = len(b)
		}
		if cr := bytes.IndexByte(b[:end], '\r'); cr >= 0 {
			end = cr
		}
		// The limit bounds the line without its terminator.
		if len(r.line)+end > r.maxLine {
			return nil, ErrLineTooLong
		}
		r.line = append(r.line, b[:end]...)
		if end == len(b) {
			r.br.Discard(end)
			continue
		}
		r.skipLF = b[end] == '\r'
		r.br.Discard(end + 1)
		return r.line, nil
	}
}

// WriteData writes one `data:` event (no name) and its terminating blank line.
// Data of several lines (an upstream may spread an event over data lines,
// which Reader joins with newlines) gets a "data: " on each. The event goes
// to w in one Write, from a pooled buffer: a stream writes one per chunk
// (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).
func WriteData(w io.Writer, data []byte) error {
	bp := framePool.Get().(*[]byte)
	buf := AppendEvent((*bp)[:0], nil, data)
	_, err := w.Write(buf)
	if cap(buf) <= maxPooledFrame {
		*bp = buf
		framePool.Put(bp)
	}
	return err
}

// AppendEvent appends one event to dst: "event: <name>" (no such line when
// name is nil; name must hold no line break), a "data: " line for each line
// of data, and the blank line that ends the event.
func AppendEvent(dst, name, data []byte) []byte {
	if name != nil {
		dst = append(dst, "event: "...)
		dst = append(dst, name...)
		dst = append(dst, '\n')
	}
	for {
		dst = append(dst, "data: "...)
		i := bytes.IndexByte(data, '\n')
		if i < 0 {
			dst = append(dst, data...)
			break
		}
		dst = append(dst, data[:i]...)
		dst = append(dst, '\n')
		data = data[i+1:]
	}
	return append(dst, '\n', '\n')
}

// framePool holds WriteData's buffers; one larger than maxPooledFrame (a
// rare huge event) is left to the collector rather than kept.
var framePool = sync.Pool{New: func() any { b := make([]byte, 0, 512); return &b }}

const maxPooledFrame = 64 << 10

// Done is the OpenAI end-of-stream marker.
var Done = []byte("[DONE]")
