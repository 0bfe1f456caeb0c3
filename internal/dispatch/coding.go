package dispatch

import (
	"bufio"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"strings"
)

// decodeBody makes resp's body its decoding where the upstream coded it
// (Content-Encoding gzip or deflate) although the request asked for
// identity (attempt.go): servers that ignore the ask exist, and read as
// identity such an answer was compressed bytes — classified by its status
// alone (a quota 429 as rate_limited), handed to the client as its
// message, and a 200 failed as undecodable, billed and asked again twice
// (hostile 55). The decoded bytes are what the answer's limits count, so a
// small bomb stops at them as any answer does. A body so labelled that is
// not so coded (jolibrain/deepdetect#176: a label without compression) is
// read as sent. Other codings (br, zstd) are left as they came.
func decodeBody(resp *http.Response) {
	switch strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding"))) {
	case "gzip", "x-gzip", "deflate":
	default:
		return
	}
	resp.Body = &decoding{raw: resp.Body}
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	resp.ContentLength = -1
	resp.Uncompressed = true
}

// decoding reads a coded body: on the first read it looks at the first
// bytes, and decodes gzip (1f 8b) or zlib-wrapped deflate, else reads the
// bytes as sent.
type decoding struct {
	raw io.ReadCloser
	r   io.Reader
	dec io.Closer
}

func (d *decoding) Read(p []byte) (int, error) {
	if d.r == nil {
		br := bufio.NewReaderSize(d.raw, 512)
		d.r = br
		head, _ := br.Peek(2)
		switch {
		case len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b:
			if z, err := gzip.NewReader(br); err == nil {
				d.r, d.dec = z, z
			}
		case len(head) == 2 && head[0]&0x0f == 8 && (uint(head[0])<<8|uint(head[1]))%31 == 0:
			if z, err := zlib.NewReader(br); err == nil {
				d.r, d.dec = z, z
			}
		}
	}
	return d.r.Read(p)
}

func (d *decoding) Close() error {
	if d.dec != nil {
		_ = d.dec.Close()
	}
	return d.raw.Close()
}
