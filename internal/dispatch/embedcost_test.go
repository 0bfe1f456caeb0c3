package dispatch

import (
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

func embedShapes() map[string]string {
	const n = 1 << 20
	list := func(k int, item string) string {
		return `{"model":"m","input":[` + strings.TrimSuffix(strings.Repeat(item+",", k), ",") + `]}`
	}
	return map[string]string{
		"one long text":  `{"model":"m","input":"` + strings.Repeat("a", n) + `"}`,
		"markup":         `{"model":"m","input":"` + strings.Repeat("<b>&</b>", n/8) + `"}`,
		"not utf-8":      `{"model":"m","input":"` + strings.Repeat("\xff", n) + `"}`,
		"line seps":      `{"model":"m","input":"` + strings.Repeat("\u2028", n/3) + `"}`,
		"many texts":     list(2048, `"`+strings.Repeat("a", n/2048)+`"`),
		"tiny texts":     list(2048, `"a"`),
		"token arrays":   list(2048, `[`+strings.TrimSuffix(strings.Repeat("1,", 256), ",")+`]`),
		"flat tokens":    list(2048, `1`),
		"too many items": list(n/2, `1`),
	}
}

func allocated(f func()) int64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return int64(after.TotalAlloc - before.TotalAlloc)
}

// Reading an embeddings body, and building all of a Gemini attempt's
// batchEmbedContents calls from it, each allocate no more than the
// EmbeddingsCost its door and its attempt hold, for the shapes that cost
// the most per byte and per element (and a list far over the limit, which
// the parse refuses as it counts: it decoded the whole list first, 24
// bytes an element).
func TestEmbeddingsCostBoundsTheParseAndTheTranslation(t *testing.T) {
	for name, body := range embedShapes() {
		b := []byte(body)
		cost := EmbeddingsCost(b)
		var e *provider.Embeddings
		parse := allocated(func() { e, _ = provider.ParseEmbeddings(b) })
		var built int64
		if e != nil && !e.Tokens {
			built = allocated(func() {
				var calls [][]byte // all built before the first is sent (batchedCall)
				for i := 0; i < len(e.Texts); i += gemini.MaxEmbedBatch {
					p := *e
					p.Texts = e.Texts[i:min(i+gemini.MaxEmbedBatch, len(e.Texts))]
					out, err := gemini.TranslateEmbeddings(&p, "text-embedding-004")
					if err != nil {
						t.Fatalf("%s: %v", name, err)
					}
					calls = append(calls, out)
				}
				runtime.KeepAlive(calls)
			})
		}
		t.Logf("%-15s body %8d parse %6.2f× gemini %6.2f× reserved %6.2f×", name, len(b),
			float64(parse)/float64(len(b)), float64(built)/float64(len(b)), float64(cost)/float64(len(b)))
		if parse > cost || built > cost {
			t.Errorf("%s: parsing %d bytes allocated %d, building Gemini's calls %d; the reservation is %d", name, len(b), parse, built, cost)
		}
	}
}
