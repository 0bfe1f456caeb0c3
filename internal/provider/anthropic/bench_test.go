package anthropic

import (
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// BenchmarkNewRequest is the translation cost of one tool-using request.
func BenchmarkNewRequest(b *testing.B) {
	adaptertest.BenchNewRequest(b, Adapter{}, "testdata/request/tool_round_trip.json")
}

// BenchmarkStreamChunk is the cost per upstream SSE event of a text stream
// (read, parse, translate, encode).
func BenchmarkStreamChunk(b *testing.B) {
	ev := []byte("event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\" there\"}}\n\n")
	adaptertest.BenchStreamChunk(b, ev, testStream)
}
