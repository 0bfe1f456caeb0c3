package server

import (
	"net/http"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
)

// discard is a ResponseWriter that keeps nothing, so a benchmark measures
// the framing alone.
type discard struct{ h http.Header }

func (d *discard) Header() http.Header         { return d.h }
func (d *discard) Write(b []byte) (int, error) { return len(b), nil }
func (d *discard) WriteHeader(int)             {}
func (d *discard) Flush()                      {}

// BenchmarkPassthroughFrames writes one passthrough stream of 20 upstream
// events to the client through each door's Output: what the front does
// per event (read its name, frame it) when a target answers in the door's
// own API (docs/benchmarks.md#overhead-beside-a-plain-reverse-proxy-benchcmdoverhead).
func BenchmarkPassthroughFrames(b *testing.B) {
	for _, door := range []struct {
		name  string
		event string
		out   func(w http.ResponseWriter) dispatch.Output
	}{
		{"responses", `{"type":"response.output_text.delta","sequence_number":3,"item_id":"msg_1","output_index":0,"content_index":0,"delta":"hi"}`,
			func(w http.ResponseWriter) dispatch.Output { return newResponsesOutput(w, "d", "r", nil) }},
		{"messages", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"hi"}}`,
			func(w http.ResponseWriter) dispatch.Output { return newMessagesOutput(w, "d", "r") }},
	} {
		ev := []byte(door.event)
		b.Run(door.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				o := door.out(&discard{h: http.Header{}})
				if err := o.Commit(dispatch.Commit{Target: "t", Provider: "p", Attempts: 1, Native: true}); err != nil {
					b.Fatal(err)
				}
				for range 20 {
					if err := o.Chunk(ev); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}
