package dispatch

import (
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

// Review 36b. TranslationCost counts costPerStructure for each object or
// array, costPerByte for every byte; but a list's element that is no
// structure at all — a null, or a number where an object belongs — still
// costs encoding/json a whole zero-valued element of the slice it decodes
// into (chat.Message is 96 bytes, the slice's growth doubles it), for two
// to five bytes of body. A body of such elements allocates several times
// its reservation.
func TestReview36bTranslationCostBoundsListsOfNonObjects(t *testing.T) {
	const n = 1 << 20
	rep := func(unit string) string { return strings.TrimSuffix(strings.Repeat(unit+",", n/(len(unit)+1)), ",") }
	shapes := map[string]string{
		"null turns":   `{"model":"m","messages":[` + rep(`null`) + `,{"role":"user","content":"a"}]}`,
		"number turns": `{"model":"m","messages":[` + rep(`0`) + `,{"role":"user","content":"a"}]}`,
		"null tools":   `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[` + rep(`null`) + `]}`,
		"null calls":   `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + rep(`0`) + `]}]}`,
	}
	dialects := map[string]func(b []byte){
		"anthropic": func(b []byte) { anthropic.Translate(&provider.Request{Body: b}, "x") },
		"gemini":    func(b []byte) { gemini.Translate(&provider.Request{Body: b}) },
	}
	for name, body := range shapes {
		for d, translate := range dialects {
			b := []byte(body)
			var before, after runtime.MemStats
			runtime.GC()
			runtime.GC()
			runtime.ReadMemStats(&before)
			translate(b)
			runtime.ReadMemStats(&after)
			used, cost := int64(after.TotalAlloc-before.TotalAlloc), TranslationCost(b)
			t.Logf("%-9s %-12s allocated %5.1f× reserved %5.1f×", d, name, float64(used)/float64(len(b)), float64(cost)/float64(len(b)))
			if used > cost {
				t.Errorf("%s, %s: translating %d bytes allocated %d, the reservation is %d", d, name, len(b), used, cost)
			}
		}
	}
}
