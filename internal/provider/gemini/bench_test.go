package gemini

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
	ev := []byte("data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \" capital of Wyoming\"}],\"role\": \"model\"}}],\"usageMetadata\": {\"promptTokenCount\": 7,\"totalTokenCount\": 7},\"modelVersion\": \"gemini-3.1-flash-lite\"}\n\n")
	adaptertest.BenchStreamChunk(b, ev, testStream)
}
