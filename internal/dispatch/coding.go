package dispatch

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"compress/zlib"
	"errors"
	"io"
	"net/http"
	"strings"
)

// maxCodings bounds the codings decoded in a row ("gzip, gzip" is two).
const maxCodings = 3

// A whole answer decodes to at most maxRatio times the coded bytes it came
// in, once past ratioFloor decoded bytes: JSON compresses 5 to 60 times, a
// bomb a thousand times. Without the bound, ~100 KB on the wire held
// 64 MiB decoded and ~300 MiB of heap for it (hostile 55c); with it, a
// bomb costs at most ratioFloor. A stream is relayed, not held (its event
// limit bounds what is): it is not bound so (unbound), since a model
// repeating one token, block-gzipped, compresses past 256 times and was
// cut as a bomb (hostile 56b).
const (
	maxRatio   = 256
	ratioFloor = 8 << 20
)

// errCodingRatio ends a body that decodes past maxRatio (decoding).
var errCodingRatio = errors.New("the upstream answer decodes to more than 256 times its compressed size (a compression bomb)")

// decodeBody makes resp's body its decoding where the upstream coded it
// (Content-Encoding gzip or deflate, once or a few times over) although
// the request asked for identity (attempt.go): servers that ignore the ask
// exist, and read as identity such an answer was compressed bytes —
// classified by its status alone (a quota 429 as rate_limited), handed to
// the client as its message, and a 200 failed as undecodable, billed and
// asked again twice (hostile 55). The decoded bytes are what the answer's
// limits count, so a small bomb stops at them as any answer does. A body
// so labelled that is not so coded (jolibrain/deepdetect#176: a label
// without compression) is read as sent. Other codings (br, zstd) are left
// as they came. A body that decodes past maxRatio times its coded size
// ends in errCodingRatio.
func decodeBody(resp *http.Response) {
	var codings []string
	for _, v := range resp.Header.Values("Content-Encoding") {
		for c := range strings.SplitSeq(v, ",") {
			switch c = strings.ToLower(strings.TrimSpace(c)); c {
			case "", "identity":
			case "gzip", "x-gzip", "deflate":
				codings = append(codings, c)
			default:
				return
			}
		}
	}
	if len(codings) == 0 || len(codings) > maxCodings {
		return
	}
	coded := &counted{ReadCloser: resp.Body}
	var body io.ReadCloser = coded
	for i := len(codings) - 1; i >= 0; i-- { // the last applied is the first undone
		body = &decoding{raw: body, deflate: codings[i] == "deflate"}
	}
	resp.Body = &bounded{ReadCloser: body, coded: coded}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
}

// decoding reads a coded body: on the first read it looks at the first
// bytes and decodes gzip (1f 8b) or, labelled deflate, zlib-wrapped or raw
// deflate (old IIS and Apache servers send raw), else reads the bytes as
// sent. A gzip member cut before its 8-byte trailer ends the body where
// its data ends, as browsers and Node's fetch read it (hostile 55c): a
// cut answer is still judged by what it holds (incomplete JSON, a stream
// without its finish).
type decoding struct {
	raw     io.ReadCloser
	deflate bool
	r       io.Reader
	dec     io.Closer
}

func (d *decoding) Read(p []byte) (int, error) {
	if d.r == nil {
		d.open()
	}
	n, err := d.r.Read(p)
	if errors.Is(err, io.ErrUnexpectedEOF) && d.dec != nil {
		err = io.EOF
	}
	return n, err
}

func (d *decoding) open() {
	br := bufio.NewReaderSize(d.raw, 512)
	d.r = br
	// Two bytes tell gzip and zlib; raw deflate is tried on what else has
	// come already. Waiting for more would hold a stream's first event
	// back until the next (hostile 55c).
	head, _ := br.Peek(2)
	if len(head) == 2 {
		head, _ = br.Peek(br.Buffered())
	}
	switch {
	case len(head) >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		if z, err := gzip.NewReader(br); err == nil {
			d.r, d.dec = z, z
		}
	case !d.deflate || len(head) == 0:
	case len(head) >= 2 && head[0]&0x0f == 8 && (uint(head[0])<<8|uint(head[1]))%31 == 0:
		if z, err := zlib.NewReader(br); err == nil {
			d.r, d.dec = z, z
		}
	case rawDeflate(head):
		z := flate.NewReader(br)
		d.r, d.dec = z, z
	}
}

// rawDeflate reports whether head, a body's first bytes, begins a raw
// deflate stream: they decode as one, where text (what a label without
// compression carries) almost never does.
func rawDeflate(head []byte) bool {
	if head[0] == '{' || head[0] == '[' || head[0] == '<' || head[0] == ' ' || head[0] == '\n' || head[0] == '\r' || head[0] == '\t' {
		return false
	}
	z := flate.NewReader(bytes.NewReader(head))
	defer z.Close()
	var out [64]byte
	n, err := z.Read(out[:])
	return n > 0 && (err == nil || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF))
}

// counted counts the bytes read through it: an answer's coded size.
type counted struct {
	io.ReadCloser
	n int64
}

func (c *counted) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n += int64(n)
	return n, err
}

// bounded ends a decoded body with errCodingRatio once it holds more
// than ratioFloor bytes and maxRatio times what came coded, unless off.
type bounded struct {
	io.ReadCloser
	coded *counted
	n     int64
	off   bool
}

func (b *bounded) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if !b.off && b.n > ratioFloor && b.n > maxRatio*b.coded.n {
		return n, errCodingRatio
	}
	return n, err
}

// unbound lifts the ratio bound from resp's body, a stream's: what it
// decodes is relayed, not held.
func unbound(resp *http.Response) {
	if b, ok := resp.Body.(*bounded); ok {
		b.off = true
	}
}

func (d *decoding) Close() error {
	if d.dec != nil {
		_ = d.dec.Close()
	}
	return d.raw.Close()
}
