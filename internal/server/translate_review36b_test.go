package server

import (
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
)

// Review 36b. A door's reservation, TranslationCost, counts each object and
// array and each byte; a list element that is neither — a null or a number
// where a message, block or item belongs — is decoded into a whole
// zero-valued element of its slice (and, for a number, an
// UnmarshalTypeError) for two to five bytes of body.
func TestReview36bTranslationCostBoundsListsOfNonObjects(t *testing.T) {
	const n = 1 << 20
	rep := func(unit string) string { return strings.TrimSuffix(strings.Repeat(unit+",", n/(len(unit)+1)), ",") }
	msg := func(s string) []byte { return []byte(`{"model":"m","max_tokens":10,` + s + `}`) }
	rsp := func(s string) []byte { return []byte(`{"model":"m",` + s + `}`) }
	shapes := map[string][]byte{
		"messages/null turns":    msg(`"messages":[` + rep(`null`) + `,{"role":"user","content":"a"}]`),
		"messages/number turns":  msg(`"messages":[` + rep(`0`) + `,{"role":"user","content":"a"}]`),
		"messages/null blocks":   msg(`"messages":[{"role":"user","content":[` + rep(`null`) + `,{"type":"text","text":"a"}]}]`),
		"messages/null tools":    msg(`"tools":[` + rep(`null`) + `],"messages":[{"role":"user","content":"x"}]`),
		"responses/null items":   rsp(`"input":[` + rep(`null`) + `,{"role":"user","content":"a"}]`),
		"responses/number items": rsp(`"input":[` + rep(`0`) + `,{"role":"user","content":"a"}]`),
	}
	for name, b := range shapes {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		translateAs(name, b)
		runtime.ReadMemStats(&after)
		used, cost := int64(after.TotalAlloc-before.TotalAlloc), dispatch.TranslationCost(b)
		t.Logf("%-24s body %7d allocated %6.1f× reserved %5.1f×", name, len(b), float64(used)/float64(len(b)), float64(cost)/float64(len(b)))
		if used > cost {
			t.Errorf("%s: translating %d bytes allocated %d, the reservation is %d", name, len(b), used, cost)
		}
	}
}
