package dispatch

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

// Per body byte and per object or array, what a translation may cost.
const (
	costPerByte      = 10
	costPerStructure = 1792
)

// TranslationCost is what translating body may cost: costPerByte for each
// byte and costPerStructure for each object or array outside strings.
func TranslationCost(body []byte) int64 {
	return costPerByte*int64(len(body)) + costPerStructure*int64(structures(body))
}

// structures counts the objects and arrays of a JSON text (the opening
// brackets outside strings), in one pass.
func structures(b []byte) int {
	n, in := 0, false
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case !in && (c == '{' || c == '['):
			n++
		}
	}
	return n
}
