package dispatch

import (
	"unicode/utf8"

	"github.com/detour-llm/detour/internal/provider"
)

// Translating a request decodes it whole, which costs many times the body
// while it runs — the Messages and Responses doors into chat, and each
// attempt from chat into an Anthropic or Gemini request, and a
// continuation by prefill (splice.Prefill, once more): up to about 9
// bytes per body byte (one long text, a long array of numbers), and about
// 1.6 KiB per object or array for a body of many small blocks (measured as
// total allocation, with the race detector's overhead and encoding/json's
// pooled buffers cold: TestTranslationCostBoundsTheTranslation here and in
// internal/server; docs/config.md, max_inflight_body_bytes). The front
// counts that memory in its request-body allowance while it is used, and
// the body the attempt sends while the attempt runs (Call.Allowance).

// Per body byte, per object or array, per element of a list, and per byte
// that encoding/json writes longer than it came (below), what a
// translation may cost.
const (
	costPerByte      = 10
	costPerStructure = 1792
	costPerGrowing   = 24
	costPerElement   = 384
)

// TranslationCost is what translating body may cost: costPerByte for each
// byte, costPerStructure for each object or array outside strings, and
// costPerGrowing more for each byte of a string that encoding/json writes
// longer than it came: a byte that is not UTF-8 (it becomes U+FFFD, three
// bytes) and U+2028 and U+2029 (always escaped, six bytes for three).
// Markup ('<', '>', '&') is not among them: translations write it as it
// came (rawjson.Marshal, review 36a).
func TranslationCost(body []byte) int64 {
	c := scanCost(body)
	return costPerByte*int64(len(body)) + costPerStructure*int64(c.structures) + costPerGrowing*int64(c.growing)
}

// EmbeddingsCost is what reading an embeddings body may cost (its parse,
// Call.CheckEmbeddings), and again what building the calls of an attempt
// at a dialect that translates it (Gemini's batchEmbedContents, every call
// of a request sent in several built before the first is sent):
// costPerByte for each byte, costPerGrowing more for each byte that grows,
// and costPerElement for each element of a list, which each cost a string
// and, translated, an object of their own (measured:
// TestEmbeddingsCostBoundsTheParseAndTheTranslation).
func EmbeddingsCost(body []byte) int64 {
	c := scanCost(body)
	// The parse refuses a list at its element past the limit, the body's
	// few other members aside.
	n := min(c.elements, provider.MaxEmbeddingsInputs+16)
	return costPerByte*int64(len(body)) + costPerElement*int64(n) + costPerGrowing*int64(c.growing)
}

// costScan is what one pass over a JSON text counts.
type costScan struct {
	structures int // objects and arrays (opening brackets outside strings)
	elements   int // values of the body's members and of the lists they hold (depth 2 at most): an embeddings body's inputs
	growing    int // bytes inside strings encoding/json writes longer than they came
}

func scanCost(b []byte) costScan {
	var c costScan
	in, depth := false, 0
	for i := 0; i < len(b); i++ {
		ch := b[i]
		switch {
		case ch >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				c.growing += size
			}
			i += size - 1
		case in && ch == '\\':
			i++
		case ch == '"':
			in = !in
		case in:
		case ch == '{' || ch == '[':
			c.structures++
			if depth++; depth <= 2 {
				c.elements++ // the first value in it
			}
		case ch == '}' || ch == ']':
			depth--
		case ch == ',' && depth <= 2:
			c.elements++
		}
	}
	return c
}
