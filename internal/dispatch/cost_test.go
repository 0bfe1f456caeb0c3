package dispatch

import (
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
)

func TestStructuresSkipsStrings(t *testing.T) {
	for in, want := range map[string]int{
		`{}`:                       1,
		`[{},[]]`:                  3,
		`{"a":"{[\"{"}`:            1,
		`{"a":"\\","b":[1]}`:       2,
		`"no [structure] {here}"`:  0,
		`{"t":"\"[\\\"{"}`:         1,
		`[{"a":"x"},{"b":"\\\\"}]`: 3,
	} {
		if got := structures([]byte(in)); got != want {
			t.Errorf("structures(%s) = %d, want %d", in, got, want)
		}
	}
}

// Each attempt's translation into another dialect allocates no more than
// the TranslationCost its attempt holds (review 33e), for the shapes that
// cost the most per byte and the least.
func TestTranslationCostBoundsTheTranslation(t *testing.T) {
	const n = 1 << 20
	rep := func(unit string) string { return strings.TrimSuffix(strings.Repeat(unit+",", n/(len(unit)+1)), ",") }
	shapes := map[string]string{
		"tiny turns": `{"model":"m","messages":[` + rep(`{"role":"user","content":"a"}`) + `]}`,
		"tiny parts": `{"model":"m","messages":[{"role":"user","content":[` + rep(`{"type":"text","text":"a"}`) + `]}]}`,
		"long text":  `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("a", n) + `"}]}`,
		"tools":      `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[` + rep(`{"type":"function","function":{"name":"f","parameters":{}}}`) + `]}`,
		"tool calls": `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + rep(`{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}`) + `]}]}`,
	}
	dialects := map[string]func(b []byte){
		"anthropic": func(b []byte) { anthropic.Translate(&provider.Request{Body: b}, "x") },
		"gemini":    func(b []byte) { gemini.Translate(&provider.Request{Body: b}) },
	}
	for name, body := range shapes {
		for d, translate := range dialects {
			b := []byte(body)
			var before, after runtime.MemStats
			runtime.GC() // twice: sync.Pool keeps a victim cache across one,
			runtime.GC() // and encoding/json's pooled buffers start cold, as at worst
			runtime.ReadMemStats(&before)
			translate(b)
			runtime.ReadMemStats(&after)
			used, cost := int64(after.TotalAlloc-before.TotalAlloc), TranslationCost(b)
			t.Logf("%-9s %-10s allocated %5.1f× reserved %5.1f×", d, name, float64(used)/float64(len(b)), float64(cost)/float64(len(b)))
			if used > cost {
				t.Errorf("%s, %s: translating %d bytes allocated %d, the reservation is %d: raise costPerByte or costPerStructure", d, name, len(b), used, cost)
			}
		}
	}
}
