package dispatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/detour-llm/detour/classify"
	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/anthropic"
	"github.com/detour-llm/detour/internal/provider/gemini"
	"github.com/detour-llm/detour/internal/splice"
)

func TestScanCostSkipsStringsAndCountsWhatGrows(t *testing.T) {
	for in, want := range map[string][2]int{
		`{}`:                       {1, 0},
		`[{},[]]`:                  {3, 0},
		`{"a":"{[\"{"}`:            {1, 0},
		`{"a":"\\","b":[1]}`:       {3, 0}, // the list's number costs an element, as a structure
		`"no [structure] {here}"`:  {0, 0},
		`{"t":"\"[\\\"{"}`:         {1, 0},
		`[{"a":"x"},{"b":"\\\\"}]`: {3, 0},
		// A shallow list's elements that are no structure count as one
		// (review 36b); a deep list's do not (a tool's arguments, kept raw).
		`{"messages":[0, null ,"a",{}],"stop":[]}`: {7, 0},
		`{"a":[{"b":[{"c":[{"d":[1,2]}]}]}]}`:      {8, 0},
		`[1,[2,"x"]]`:                              {5, 0},
		// Bytes that grow: not UTF-8, U+2028, U+2029; valid UTF-8 does not.
		`{"a":"` + "\xff\xfe" + `"}`:          {1, 2},
		`{"a":"` + "\u2028x\u2029" + `"}`:     {1, 6},
		`{"a":"` + "héllo 世界 🙂" + `","b":[]}`: {2, 0},
		`{"a":"` + "\xe4\xb8" + `{"}`:         {1, 2}, // a cut sequence, then a bracket inside the string
	} {
		if c := scanCost([]byte(in)); c.structures != want[0] || c.growing != want[1] {
			t.Errorf("scanCost(%q) = %d, %d, want %d, %d", in, c.structures, c.growing, want[0], want[1])
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
		// Text encoding/json writes longer than it came: markup (review
		// 36a: '<' was six bytes until translations stopped escaping
		// HTML), U+2028 (always escaped), bytes that are not UTF-8 (each
		// becomes U+FFFD).
		"markup":          `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("<b>&</b>", n/8) + `"}]}`,
		"line separators": `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("\u2028", n/3) + `"}]}`,
		"not utf-8":       `{"model":"m","messages":[{"role":"user","content":"` + strings.Repeat("\xff", n) + `"}]}`,
		// A shallow list's elements that are no objects still cost the
		// decoder a whole element each (review 36b); a message's members
		// cost a map entry each where it is decoded into a map (a
		// continuation by prefill: review 36c).
		"null turns":   `{"model":"m","messages":[` + rep(`null`) + `,{"role":"user","content":"a"}]}`,
		"number turns": `{"model":"m","messages":[` + rep(`0`) + `,{"role":"user","content":"a"}]}`,
		"null tools":   `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[` + rep(`null`) + `]}`,
		"number calls": `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + rep(`0`) + `]}]}`,
		"wide turn":    `{"model":"m","messages":[{"role":"user","content":"a",` + wideMembers(n) + `}]}`,
		"tools":        `{"model":"m","messages":[{"role":"user","content":"a"}],"tools":[` + rep(`{"type":"function","function":{"name":"f","parameters":{}}}`) + `]}`,
		"tool calls":   `{"model":"m","messages":[{"role":"user","content":"a"},{"role":"assistant","content":null,"tool_calls":[` + rep(`{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}`) + `]}]}`,
	}
	// A continuation by prefill decodes the body too (continue.go): alone
	// at an openai-dialect target, before the translation at the others,
	// which then hold two costs (newRequest).
	prefill := func(b []byte, d classify.Dialect) []byte {
		out, _, err := splice.Prefill(b, "delivered so far", d)
		if err == nil {
			out, err = splice.LowerCap(out, 3)
		}
		if err != nil {
			return b // no prefill (a body ending in a tool call): replay, which decodes nothing
		}
		return out
	}
	dialects := map[string]struct {
		translate func(b []byte)
		decodes   int64
	}{
		"anthropic":         {func(b []byte) { anthropic.Translate(&provider.Request{Body: b}, "x") }, 1},
		"gemini":            {func(b []byte) { gemini.Translate(&provider.Request{Body: b}) }, 1},
		"openai+prefill":    {func(b []byte) { prefill(b, classify.OpenAI) }, 1},
		"anthropic+prefill": {func(b []byte) { anthropic.Translate(&provider.Request{Body: prefill(b, classify.Anthropic)}, "x") }, 2},
	}
	for name, body := range shapes {
		for d, dl := range dialects {
			b := []byte(body)
			var before, after runtime.MemStats
			runtime.GC() // twice: sync.Pool keeps a victim cache across one,
			runtime.GC() // and encoding/json's pooled buffers start cold, as at worst
			runtime.ReadMemStats(&before)
			dl.translate(b)
			runtime.ReadMemStats(&after)
			used, cost := int64(after.TotalAlloc-before.TotalAlloc), dl.decodes*TranslationCost(b)
			t.Logf("%-9s %-10s allocated %5.1f× reserved %5.1f×", d, name, float64(used)/float64(len(b)), float64(cost)/float64(len(b)))
			if used > cost {
				t.Errorf("%s, %s: translating %d bytes allocated %d, the reservation is %d: raise costPerByte or costPerStructure", d, name, len(b), used, cost)
			}
		}
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

// Counting a message's members (review 36c) adds little to what real
// clients' requests reserve: never double (review 36d measured 2–7 % on
// the recorded Claude Code, Codex and SDK requests).
func TestMembersAddLittleToRealClientsCost(t *testing.T) {
	files, _ := filepath.Glob("../../e2e/testdata/clients/*.jsonl")
	n := 0
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range bytes.Split(data, []byte("\n")) {
			var r struct {
				Body json.RawMessage `json:"body"`
			}
			if json.Unmarshal(line, &r) != nil || len(r.Body) < 1000 {
				continue
			}
			n++
			cost := TranslationCost(r.Body)
			members := costPerMember * int64(scanCost(r.Body).members)
			if members > cost-members {
				t.Errorf("%s:%d: members %d of a reservation of %d: more than double", filepath.Base(f), i+1, members, cost)
			}
		}
	}
	if n == 0 {
		t.Fatal("no recorded client request read")
	}
}
