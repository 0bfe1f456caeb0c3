package server

import (
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/messages"
	"github.com/detour-llm/detour/internal/door/responses"
)

// costShapes are door bodies of about n bytes in the shapes that cost the
// most to translate per byte (many one-letter blocks, items, tools) and the
// least (one long text), for each door.
func costShapes(n int) map[string]func() []byte {
	rep := func(unit string) string {
		return strings.TrimSuffix(strings.Repeat(unit+",", n/(len(unit)+1)), ",")
	}
	msg := func(s string) func() []byte {
		return func() []byte { return []byte(`{"model":"m","max_tokens":10,` + s + `}`) }
	}
	rsp := func(s string) func() []byte { return func() []byte { return []byte(`{"model":"m",` + s + `}`) } }
	const document = `{"type":"document","source":{"type":"text","media_type":"text/plain","data":"x"}}`
	return map[string]func() []byte{
		"messages/long text":    msg(`"messages":[{"role":"user","content":"` + strings.Repeat("a", n) + `"}]`),
		"messages/tiny blocks":  msg(`"messages":[{"role":"user","content":[` + rep(`{"type":"text","text":"a"}`) + `]}]`),
		"messages/tiny turns":   msg(`"messages":[` + rep(`{"role":"user","content":"a"},{"role":"assistant","content":"b"}`) + `,{"role":"user","content":"a"}]`),
		"messages/tool input":   msg(`"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{"a":[` + rep(`1`) + `]}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}]`),
		"messages/tools":        msg(`"tools":[` + rep(`{"name":"f","input_schema":{"type":"object"}}`) + `],"messages":[{"role":"user","content":"x"}]`),
		"messages/tool results": msg(`"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[` + rep(`{"type":"text","text":"a"}`) + `]}]}]`),
		"messages/thinking":     msg(`"messages":[{"role":"user","content":"x"},{"role":"assistant","content":[` + rep(`{"type":"thinking","thinking":"a"}`) + `,{"type":"text","text":"b"}]},{"role":"user","content":"y"}]`),
		// Only an Anthropic target can serve a document block: the door
		// translates as far as it, then checks the whole body (review 35a).
		"messages/turns, then a document": msg(`"messages":[` + rep(`{"role":"user","content":"a"},{"role":"assistant","content":"b"}`) + `,{"role":"user","content":[` + document + `]}]`),
		"messages/parts, then a document": msg(`"messages":[` + rep(`{"role":"user","content":[]}`) + `,{"role":"user","content":[` + document + `]}]`),
		"responses/long text":             rsp(`"input":"` + strings.Repeat("a", n) + `"`),
		// Text encoding/json writes longer than it came (review 36a).
		"messages/markup":          msg(`"messages":[{"role":"user","content":"` + strings.Repeat("<b>&</b>", n/8) + `"}]`),
		"messages/line separators": msg(`"messages":[{"role":"user","content":"` + strings.Repeat("\u2028", n/3) + `"}]`),
		"messages/not utf-8":       msg(`"messages":[{"role":"user","content":"` + strings.Repeat("\xff", n) + `"}]`),
		"responses/markup":         rsp(`"input":"` + strings.Repeat("<b>&</b>", n/8) + `"`),
		// A shallow list's elements that are no objects (review 36b); a
		// message of many members, which the unsigned-thinking check
		// decodes into a map (review 36c).
		"messages/null turns":                   msg(`"messages":[` + rep(`null`) + `,{"role":"user","content":"a"}]`),
		"messages/number turns":                 msg(`"messages":[` + rep(`0`) + `,{"role":"user","content":"a"}]`),
		"messages/null blocks":                  msg(`"messages":[{"role":"user","content":[` + rep(`null`) + `,{"type":"text","text":"a"}]}]`),
		"messages/null tools":                   msg(`"tools":[` + rep(`null`) + `],"messages":[{"role":"user","content":"x"}]`),
		"responses/null items":                  rsp(`"input":[` + rep(`null`) + `,{"role":"user","content":"a"}]`),
		"responses/number items":                rsp(`"input":[` + rep(`0`) + `,{"role":"user","content":"a"}]`),
		"messages/wide turn, unsigned thinking": msg(`"messages":[{"role":"user","content":"a"},{"role":"assistant","content":[{"type":"thinking","thinking":"a","signature":""},{"type":"text","text":"b"}]},{"role":"user","content":"c",` + wideMembers(n) + `}]`),
		"responses/tiny items":                  rsp(`"input":[` + rep(`{"role":"user","content":"a"}`) + `]`),
		"responses/tiny parts":                  rsp(`"input":[{"role":"user","content":[` + rep(`{"type":"input_text","text":"a"}`) + `]}]`),
		"responses/calls":                       rsp(`"input":[` + rep(`{"type":"function_call","call_id":"c","name":"f","arguments":"{}"},{"type":"function_call_output","call_id":"c","output":"o"}`) + `]`),
		"responses/nested items":                rsp(`"input":[{"role":"user","content":[{"type":"input_text","text":"a"}]}` + strings.Repeat(`,{"role":"user","content":[{"type":"input_text","text":"a"}]}`, n/62) + `]`),
	}
}

// translateAs runs what the door of a shape runs on its body within the
// reservation: for Messages the translation and, for a request only an
// Anthropic target can serve, the check that it is a Messages request at
// all (messages.go).
func translateAs(name string, b []byte) {
	if strings.HasPrefix(name, "messages/") {
		messages.DropUnsigned(b)
		if _, err := messages.Translate(b); err != nil {
			messages.Check(b)
		}
		return
	}
	responses.Translate(b)
}

// The allowance a door reserves bounds what its translation allocates, for
// every shape (review 33e): a translation that grew past translationCost
// would again hold memory the allowance does not count.
func TestTranslationCostBoundsTheTranslation(t *testing.T) {
	for name, mk := range costShapes(1 << 20) {
		b := mk()
		var before, after runtime.MemStats
		runtime.GC() // twice: sync.Pool keeps a victim cache across one,
		runtime.GC() // and encoding/json's pooled buffers start cold, as at worst
		runtime.ReadMemStats(&before)
		translateAs(name, b)
		runtime.ReadMemStats(&after)
		used, cost := int64(after.TotalAlloc-before.TotalAlloc), dispatch.TranslationCost(b)
		t.Logf("%-22s body %7d allocated %5.1f× reserved %5.1f×", name, len(b), float64(used)/float64(len(b)), float64(cost)/float64(len(b)))
		if used > cost {
			t.Errorf("%s: translating %d bytes allocated %d, the reservation is %d: raise dispatch's costPerByte or costPerStructure",
				name, len(b), used, cost)
		}
	}
}

// BenchmarkTranslationCost reports, per shape, what a translation
// allocates per body byte (alloc-x) beside what the door reserves for it
// (reserved-x): go test ./internal/server -run x -bench TranslationCost.
func BenchmarkTranslationCost(b *testing.B) {
	for name, mk := range costShapes(256 << 10) {
		body := mk()
		b.Run(strings.ReplaceAll(name, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(body)))
			var before, after runtime.MemStats
			runtime.ReadMemStats(&before)
			for b.Loop() {
				translateAs(name, body)
			}
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(len(body)), "alloc-x")
			b.ReportMetric(float64(dispatch.TranslationCost(body))/float64(len(body)), "reserved-x")
		})
	}
}

// wideMembers is about n bytes of members "k0":0,"k1":0,… for one object.
func wideMembers(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, `"k%d":0,`, i)
	}
	return strings.TrimSuffix(b.String(), ",")
}
