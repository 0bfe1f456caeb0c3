package anthropic

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// hostileBranches is a root anyOf of n branches that each define the same
// property "x" differently ({"properties":{"x":<i>}}): the fold keeps every
// definition and, before keeping one, compares it with every definition
// held so far (propSet.add's slices.ContainsFunc), so n branches cost n²/2
// comparisons.
func hostileBranches(n int) json.RawMessage {
	var b bytes.Buffer
	b.WriteString(`{"type":"object","anyOf":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"properties":{"x":`)
		b.WriteString(strconv.Itoa(1000000 + i))
		b.WriteString(`}}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// BenchmarkFoldRootManyBranches folds one tool of a chat request bound for
// a Claude target whose root anyOf has 40,000 branches (1.1 MiB), each
// defining one property differently: linear in the branches (hostile 50:
// 3 s when each definition was compared with every earlier one; 94 ms
// after, on the two-core workplace machine).
func BenchmarkFoldRootManyBranches(b *testing.B) {
	s := hostileBranches(40000)
	for b.Loop() {
		foldRoot(s)
	}
}

// FuzzHostile50FoldRoot: whatever a client writes as a function's
// parameters, the fold either returns it as it came or returns valid JSON
// (an invalid schema would be a translation error the client did not write).
func FuzzHostile50FoldRoot(f *testing.F) {
	for _, s := range []string{
		`{"type":"object","properties":{"a":{"type":"string"}},"anyOf":[{"required":["a"]},{"properties":{"b":1}}]}`,
		`{"allOf":[{"properties":{"a\"b":{}},"required":["a\"b"]}],"properties":null,"required":"x"}`,
		`{"oneOf":[{"properties":{"k":{"const":"c"}}},{"properties":{"k":{"const":"s"}}}],"properties":{"k":{}},"properties":{"z":1}}`,
		`{"anyOf":[1,"x",null,{"properties":[]}],"oneOf":{},"allOf":[{"required":[1,"a",null]}]}`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !json.Valid([]byte(s)) {
			return
		}
		out, _ := foldRoot(json.RawMessage(s))
		if !json.Valid(out) {
			t.Fatalf("fold of %s is not JSON: %s", s, out)
		}
	})
}

// hostileAllowed is a chat request of n function tools and an
// allowed_tools choice listing n other names: each tool is looked up in
// the list (ToolChoice.Permits, slices.Contains), n² comparisons.
func hostileAllowed(n int) []byte {
	var b bytes.Buffer
	b.WriteString(`{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"function","function":{"name":"f` + strconv.Itoa(1000000+i) + `"}}`)
	}
	b.WriteString(`],"tool_choice":{"type":"allowed_tools","allowed_tools":{"mode":"auto","tools":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"type":"function","function":{"name":"g` + strconv.Itoa(1000000+i) + `"}}`)
	}
	b.WriteString(`]}}}`)
	return b.Bytes()
}

// BenchmarkTranslateManyAllowedTools translates 40,000 function tools and
// an allowed_tools choice of 40,000 names (4 MiB) for Claude: linear
// (hostile 50: 7.9 s when each tool was looked up in the list; 0.1 s after).
func BenchmarkTranslateManyAllowedTools(b *testing.B) {
	req := adaptertest.ClientRequest(b, hostileAllowed(40000))
	for b.Loop() {
		Translate(req, "claude")
	}
}
