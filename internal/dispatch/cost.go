package dispatch

import "unicode/utf8"

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

// Per body byte, per object or array, and per byte that encoding/json
// writes longer than it came (below), what a translation may cost.
const (
	costPerByte      = 10
	costPerStructure = 1792
	costPerGrowing   = 16
)

// TranslationCost is what translating body may cost: costPerByte for each
// byte, costPerStructure for each object or array outside strings, and
// costPerGrowing more for each byte of a string that encoding/json writes
// longer than it came: a byte that is not UTF-8 (it becomes U+FFFD, three
// bytes) and U+2028 and U+2029 (always escaped, six bytes for three).
// Markup ('<', '>', '&') is not among them: translations write it as it
// came (rawjson.Marshal, review 36a).
func TranslationCost(body []byte) int64 {
	n, grow := scanCost(body)
	return costPerByte*int64(len(body)) + costPerStructure*int64(n) + costPerGrowing*int64(grow)
}

// scanCost counts, in one pass, the objects and arrays of a JSON text (the
// opening brackets outside strings) and the bytes inside its strings that
// encoding/json writes longer than they came.
func scanCost(b []byte) (structures, growing int) {
	in := false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				growing += size
			}
			i += size - 1
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == '{' || c == '['):
			structures++
		}
	}
	return structures, growing
}
