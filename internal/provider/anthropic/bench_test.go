package anthropic

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }

// BenchmarkNewRequest is the translation cost of one tool-using request.
func BenchmarkNewRequest(b *testing.B) {
	f := readFixturesB(b, "testdata/request/tool_round_trip.json")
	req := clientRequest(b, f.In)
	ep := provider.Endpoint{BaseURL: "http://x", APIKey: "k", Model: "m"}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := (Adapter{}).NewRequest(context.Background(), ep, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkStreamChunk is the cost per upstream SSE event of a text stream
// (read, parse, translate, encode).
func BenchmarkStreamChunk(b *testing.B) {
	ev := []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}\n\n")
	in := bytes.Repeat(ev, 1000)
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	for b.Loop() {
		s := Adapter{}.Stream(bytes.NewReader(in), testEP)
		for {
			if _, err := s.Next(); err != nil {
				break
			}
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*1000), "ns/chunk")
}
