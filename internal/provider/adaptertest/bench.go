package adaptertest

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// BenchNewRequest measures a's NewRequest for the client request of the
// fixture at path.
func BenchNewRequest(b *testing.B, a provider.Adapter, path string) {
	b.Helper()
	req := ClientRequest(b, ReadFixture(b, path).In)
	ep := provider.Endpoint{BaseURL: "http://x", APIKey: "k", Model: "m"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := a.NewRequest(context.Background(), ep, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchStreamChunk measures newStream over 1,000 copies of the upstream SSE
// event ev (read, parse, translate, encode) and reports ns/chunk.
func BenchStreamChunk(b *testing.B, ev []byte, newStream func(io.Reader) provider.Stream) {
	b.Helper()
	in := bytes.Repeat(ev, 1000)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		s := newStream(bytes.NewReader(in))
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/chunk")
}
