package dispatch

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/health"
	"github.com/detour-llm/detour/internal/upstreamtest"
)

// benchWhole measures what plain does with a whole 2xx answer before it
// is the client's: classify it (an error may hide in a 200), check it is a
// chat completion and read its usage.
func benchWhole(b *testing.B, text string) {
	h := newHarness(b, "", func(health.Key, int) answer { return okAnswer })
	e := h.d.routes["a"].targets[0].endpoints[0]
	call := testCall("a", 0, 0)
	w := &walk{d: h.d, call: call}
	body := []byte(text)
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		v := w.d.cls.Classify(classify.Response{Status: 200, Body: body, Dialect: e.prov.cfg.Dialect,
			Provider: e.prov.cfg.Name, Request: call.sent(), Model: e.ep.Model})
		out, usage, err := w.decodeWhole(e, body)
		if v.Failed || err != nil || len(out) != len(body) || usage == nil || usage.TotalTokens != 7 {
			b.Fatalf("%+v %v %v", v, err, usage)
		}
	}
}

// BenchmarkWholeAnswer: the benchmarks' short chat.completion (~300 bytes).
func BenchmarkWholeAnswer(b *testing.B) {
	benchWhole(b, upstreamtest.ChatJSON("gpt-4o-mini", "Hello there, nice to meet."))
}

// BenchmarkWholeAnswer3KiB: a 3 KiB answer with escapes in its text.
func BenchmarkWholeAnswer3KiB(b *testing.B) {
	benchWhole(b, upstreamtest.ChatJSON("gpt-4o-mini",
		strings.Repeat("The quick brown fox jumps over the lazy dog, \"quoted\" and \n escaped. ", 40)))
}
