package openai

import (
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// BenchmarkStreamNext: the benchmarks' 20-chunk chat stream (24 events)
// read event by event, as dispatch reads every relayed stream.
func BenchmarkStreamNext(b *testing.B) {
	parts := make([]string, 20)
	for i := range parts {
		parts[i] = fmt.Sprintf("word%d ", i)
	}
	var sb strings.Builder
	for _, ev := range upstreamtest.ChatStream("gpt-4o-mini", parts...) {
		sb.WriteString("data: " + ev + "\n\n")
	}
	raw := sb.String()
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		st := Adapter{}.Stream(strings.NewReader(raw), provider.Endpoint{})
		n := 0
		for {
			ev, err := st.Next()
			if err == io.EOF {
				break
			}
			if err != nil || ev.Malformed {
				b.Fatal(err, ev.Malformed)
			}
			n++
		}
		if n < 20 {
			b.Fatal(n)
		}
	}
}
