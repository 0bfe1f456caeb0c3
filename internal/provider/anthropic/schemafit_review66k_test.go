package anthropic

import (
	"runtime"
	"strings"
	"testing"
)

// Review 66k: fitting must not make a schema the client's answer can no
// longer satisfy, nor drop a constraint it relies on without a word; what
// it cannot say goes to the answer tool, as review 66f's other fallbacks.
func TestFitSchemaKeepsWhatTheClientReliesOnReview66k(t *testing.T) {
	for name, schema := range map[string]string{
		// allOf of two objects, each closed by the fitting, allows no
		// object with the members of both: the client's required "a" and
		// "b" could never both be written (zod's .and(), an intersection).
		"allOf of open objects": `{"type":"object","properties":{"x":{"allOf":[` +
			`{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]},` +
			`{"type":"object","properties":{"b":{"type":"string"}},"required":["b"]}]}},"required":["x"],"additionalProperties":false}`,
		// A branch adding members to an object that has its own: the
		// closed parent refuses the branch's members.
		"anyOf adding members": `{"type":"object","properties":{"kind":{"type":"string"}},"required":["kind"],` +
			`"anyOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"]}],"additionalProperties":false}`,
		// Beside a $ref, members that constrain too (draft 2019-09 on):
		// sent as a $ref alone, the client's required "id" was dropped.
		"$ref with required": `{"type":"object","properties":{"x":{"$ref":"#/$defs/base","properties":{"id":{"type":"string"}},"required":["id"]}},` +
			`"required":["x"],"additionalProperties":false,"$defs":{"base":{"type":"object","properties":{"n":{"type":"string"}},"required":["n"],"additionalProperties":false}}}`,
		// An object with an empty properties list and no
		// additionalProperties: false is any object; closed, only {}.
		// A required member the properties do not list (or lost to a
		// repeated "properties", the last of which JSON readers keep):
		// closed, the object could never hold it.
		"required beside properties": `{"type":"object","properties":{"b":{"type":"string"}},"required":["a","b"]}`,
		"repeated properties":        `{"type":"object","properties":{"a":{"type":"string"}},"properties":{"b":{"type":"integer"}},"required":["a"]}`,
		"empty properties":           `{"type":"object","properties":{"meta":{"type":"object","properties":{}}},"required":["meta"],"additionalProperties":false}`,
	} {
		if out, ok := fitSchema([]byte(schema)); ok {
			t.Errorf("%s: fitted %s, want the answer tool", name, out)
		}
	}
	// Still taken: a $ref beside words only; allOf of closed objects
	// (as the client wrote them); anyOf alternatives of objects; an empty
	// closed object.
	for name, schema := range map[string]string{
		"$ref with a description": `{"type":"object","properties":{"x":{"$ref":"#/$defs/b","description":"the b"}},"required":["x"],"$defs":{"b":{"type":"string"}}}`,
		"allOf of closed objects": `{"type":"object","properties":{"x":{"allOf":[{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}]}},"required":["x"]}`,
		"anyOf alternatives":      `{"type":"object","properties":{"x":{"anyOf":[{"type":"object","properties":{"a":{"type":"string"}}},{"type":"null"}]}},"required":["x"]}`,
		"closed empty":            `{"type":"object","properties":{"m":{"type":"object","properties":{},"additionalProperties":false}},"required":["m"]}`,
	} {
		if out, ok := fitSchema([]byte(schema)); !ok {
			t.Errorf("%s: not fitted", name)
		} else if name == "$ref with a description" && !strings.Contains(string(out), `"$ref":"#/$defs/b"`) {
			t.Errorf("%s: %s", name, out)
		}
	}
}

// A deep schema's bytes are written once: fitting a schema nested 60
// levels around 1 MiB of a default copied the MiB at every level (125
// times the body allocated, where a translation reserves 10 times it:
// docs/config.md, max_inflight_body_bytes).
func TestFitSchemaDeepAllocatesOnceReview66k(t *testing.T) {
	s := `{"type":"string","default":"` + strings.Repeat("a", 1<<20) + `"}`
	for i := 0; i < 60; i++ {
		s = `{"type":"object","required":["a"],"properties":{"a":` + s + `}}`
	}
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out, ok := fitSchema([]byte(s))
	runtime.ReadMemStats(&after)
	if !ok || len(out) < 1<<20 {
		t.Fatalf("not fitted: %v", ok)
	}
	if used := after.TotalAlloc - before.TotalAlloc; used > 4*uint64(len(s)) {
		t.Errorf("fitting %d bytes allocated %d (%.1f×), want at most 4×", len(s), used, float64(used)/float64(len(s)))
	}
}
