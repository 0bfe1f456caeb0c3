package dispatch

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// gzipped is s, then fill repeated mib MiB, gzip-coded.
func gzipped(s string, fill byte, mib int) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	chunk := bytes.Repeat([]byte{fill}, 1<<20)
	for range mib {
		zw.Write(chunk)
	}
	zw.Close()
	return b.Bytes()
}

// coded fetches body from a loopback server that sends it labelled gzip.
func coded(t *testing.T, body []byte) *http.Response {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	req, _ := http.NewRequest(http.MethodGet, srv.URL, nil)
	req.Header.Set("Accept-Encoding", "identity") // as attempts ask
	resp, err := http.DefaultTransport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	decodeBody(resp)
	return resp
}

// A gzip bomb (100 MiB of one byte in ~100 KB) is read no further than
// ratioFloor decoded bytes: it ends in errCodingRatio, where before it
// decoded to the 64 MiB whole-answer limit and held ~300 MiB of heap for
// it (hostile 55c).
func TestCompressionBombEndsAtTheRatio(t *testing.T) {
	bomb := gzipped(`{"choices":[{"message":{"content":"`, 'a', 100)
	n, err := io.Copy(io.Discard, coded(t, bomb).Body)
	if !errors.Is(err, errCodingRatio) {
		t.Fatalf("read %d bytes, error %v; want errCodingRatio", n, err)
	}
	if n > ratioFloor+64<<10 {
		t.Errorf("decoded %d bytes before stopping; want at most ratioFloor (%d) and one read", n, ratioFloor)
	}
}

// A large answer that compresses as JSON does (a few to 60 times) is read
// whole, however large.
func TestCompressedAnswerWithinTheRatioIsReadWhole(t *testing.T) {
	var s strings.Builder
	for i := 0; s.Len() < 20<<20; i++ {
		s.WriteString(`{"index":`)
		s.WriteString(strings.Repeat("7", i%13+1))
		s.WriteString(`,"object":"embedding","embedding":[0.0123,-0.0456,0.0789,`)
		s.WriteString(strings.Repeat("1", i%29))
		s.WriteString("]},\n")
	}
	want := s.String()
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, want)
	zw.Close()
	if r := len(want) / b.Len(); r < 20 {
		t.Fatalf("the answer compresses only %dx: not the case tested", r)
	}
	got, err := io.ReadAll(coded(t, b.Bytes()).Body)
	if err != nil || string(got) != want {
		t.Fatalf("read %d of %d bytes, error %v", len(got), len(want), err)
	}
}
