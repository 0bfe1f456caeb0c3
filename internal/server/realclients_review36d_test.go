package server

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/detour-llm/detour/internal/dispatch"
	"github.com/detour-llm/detour/internal/door/messages"
)

// oldCost734b664 is dispatch.TranslationCost as of 734b664 (before review
// 36b/36c): 10 per byte and 1792 per bracket outside strings.
func oldCost734b664(b []byte) int64 {
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
	return 10*int64(len(b)) + 1792*int64(n)
}

// membersOf counts ':' outside strings at depth <= 3, as scanCost's
// members do (to separate 36c's share from 36b's).
func membersOf(b []byte) int {
	in, depth, n := false, 0, 0
	for i := 0; i < len(b); i++ {
		c := b[i]
		switch {
		case in && c == '\\':
			i++
		case c == '"':
			in = !in
		case in:
		case c == '{' || c == '[':
			depth++
		case c == '}' || c == ']':
			depth--
		case c == ':' && depth <= 3:
			n++
		}
	}
	return n
}

// Review 36d (question 3): what the members term of 55e7ae5 adds to the
// reservation of every recorded real client's body, and how many Claude
// Code requests translating at once fit in the default allowance now and
// at 734b664. Informational: it logs, and fails only if the members term
// ever more than doubles a real body's cost.
func TestReview36dRealClientsCostNowAndAt734b664(t *testing.T) {
	const allowance = 64 << 20
	files, _ := filepath.Glob("../../e2e/testdata/clients/*.jsonl")
	for _, f := range files {
		fh, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		sc.Buffer(nil, 1<<24)
		for line := 1; sc.Scan(); line++ {
			var r struct {
				Path string          `json:"path"`
				Body json.RawMessage `json:"body"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || len(r.Body) < 1000 {
				continue
			}
			b := bytes.Clone(r.Body)
			now, old, m := dispatch.TranslationCost(b), oldCost734b664(b), membersOf(b)
			mid := now - 384*int64(m)
			t.Logf("%-52s %2d %-22s %6d B  old %5.1f×  e306fc1 %5.1f×  now %5.1f× (members %4d = +%4.1f%%)",
				filepath.Base(f), line, r.Path, len(b), float64(old)/float64(len(b)), float64(mid)/float64(len(b)),
				float64(now)/float64(len(b)), m, 100*float64(now-mid)/float64(mid))
			if now > 2*mid {
				t.Errorf("%s:%d: members more than double the cost", f, line)
			}
			if filepath.Base(f) == "claude-code-2.1.332.jsonl" && r.Path == "/v1/messages" && len(b) > 40000 {
				chat := int64(0)
				if tr, err := messages.Translate(bytes.Clone(b)); err == nil {
					chat = int64(len(tr.Body))
				}
				// At the Messages door: the body is held, the translation
				// reserves its cost, then the chat body stays.
				peakNow, peakOld := int64(len(b))+now, int64(len(b))+old
				steady := int64(len(b)) + chat
				t.Logf("claude code %d B (chat %d B): all translating at once: %d fit now, %d at 734b664; after translation each holds %d B: %d fit",
					len(b), chat, allowance/peakNow, allowance/peakOld, steady, allowance/steady)
			}
		}
		fh.Close()
	}
}
