package dispatch

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/splice"
)

// Review 36c. A continuation by prefill (splice.Prefill) reserves
// TranslationCost of the chat body (native.go: decodes) and decodes every
// message into a map[string]json.RawMessage, then writes them back sorted:
// a message of many members is one structure to TranslationCost but a
// map slot, a key string and a sort entry per member to the decoder.
func TestReview36cTranslationCostBoundsPrefillOfWideMessages(t *testing.T) {
	const n = 1 << 20
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `"k%d":0,`, i)
	}
	members := strings.TrimSuffix(b.String(), ",")
	body := []byte(`{"model":"m","messages":[{"role":"user","content":"a",` + members + `}]}`)
	for d, run := range map[string]func(){
		"prefill (openai)": func() { splice.Prefill(body, "delivered text", classify.OpenAI) },
		"prefill + anthropic": func() {
			p, _, _ := splice.Prefill(body, "delivered text", classify.Anthropic)
			anthropic.Translate(&provider.Request{Body: p}, "x")
		},
	} {
		decodes := int64(1)
		if d == "prefill + anthropic" {
			decodes = 2
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.GC()
		runtime.ReadMemStats(&before)
		run()
		runtime.ReadMemStats(&after)
		used, cost := int64(after.TotalAlloc-before.TotalAlloc), decodes*TranslationCost(body)
		t.Logf("%-20s body %d allocated %5.1f× reserved %5.1f×", d, len(body), float64(used)/float64(len(body)), float64(cost)/float64(len(body)))
		if used > cost {
			t.Errorf("%s: a chat message of %d bytes of members allocated %d, the reservation is %d", d, len(body), used, cost)
		}
	}
}
