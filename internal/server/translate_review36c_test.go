package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
)

// Review 36c. TranslationCost reserves 10 bytes per byte and 1,792 per
// object: a message object is one structure however many members it has.
// But messages.DropUnsigned (run by the door inside the same reservation,
// whenever a thinking block has an empty signature) decodes every message
// into a map[string]json.RawMessage: each member costs a map slot (key,
// 24-byte RawMessage, the table's doubling) and its key's own string, for
// about ten bytes of body.
func TestReview36cTranslationCostBoundsWideMessages(t *testing.T) {
	const n = 1 << 20
	members := func() string {
		var b strings.Builder
		for i := 0; b.Len() < n; i++ {
			fmt.Fprintf(&b, `"k%d":0,`, i)
		}
		return strings.TrimSuffix(b.String(), ",")
	}()
	unsigned := `{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":""},{"type":"text","text":"b"}]}`
	shapes := map[string][]byte{
		"messages/wide turn, unsigned thinking": []byte(`{"model":"m","max_tokens":10,"messages":[{"role":"user","content":"a"},` + unsigned + `,{"role":"user","content":"c",` + members + `}]}`),
	}
	for name, b := range shapes {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		translateAs(name, b)
		runtime.ReadMemStats(&after)
		used, cost := int64(after.TotalAlloc-before.TotalAlloc), dispatch.TranslationCost(b)
		t.Logf("%-40s body %7d allocated %6.1f× reserved %5.1f×", name, len(b), float64(used)/float64(len(b)), float64(cost)/float64(len(b)))
		if used > cost {
			t.Errorf("%s: translating %d bytes allocated %d, the reservation is %d", name, len(b), used, cost)
		}
	}
}
