package gemini

import (
	"encoding/json"
	"math/rand"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// deepSchema nests depth "items" levels, its deepest node holding a
// payload of n numbers before a "$ref": every level's walk crosses the
// whole payload (bytes.Contains, then Scan.Next twice over each member).
func deepSchema(depth, n int) string {
	var b strings.Builder
	for i := 0; i < depth; i++ {
		b.WriteString(`{"type":"array","items":`)
	}
	b.WriteString(`{"enum":[`)
	for i := 0; i < n; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('0')
	}
	b.WriteString(`],"$ref":"#"}`)
	for i := 0; i < depth; i++ {
		b.WriteByte('}')
	}
	return b.String()
}

// An escaped "$ref" key ("\u0024ref", which JSON decoders read as "$ref")
// in a document that also has a literal "$ref": the walk finds the node
// has a $ref (KeyIs decodes escapes), keeps only members whose key starts
// with a literal '$', and so drops the reference itself: the node becomes
// {} (any value), the schema's meaning changed.
func TestReview62kEscapedRefKeyDropped(t *testing.T) {
	s := `{"type":"object","properties":{"a":{"\u0024ref":"#/$defs/A","examples":["$ref"]},"b":{"$ref":"#/$defs/A"}},"$defs":{"A":{"type":"string"}}}`
	out := string(refOnly(json.RawMessage(s)))
	var m struct {
		Properties map[string]map[string]any `json:"properties"`
	}
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("invalid: %v: %s", err, out)
	}
	if _, ok := m.Properties["a"]["$ref"]; !ok {
		t.Errorf("property a lost its $ref: %s", out)
	}
	// Alone (no literal "$ref" anywhere), the node goes unchanged and
	// Gemini, decoding the escape, meets $ref with a sibling: its 400.
	s2 := `{"type":"object","properties":{"a":{"\u0024ref":"#/$defs/A","title":"t"}},"$defs":{"A":{"type":"string"}}}`
	if got := string(refOnly(json.RawMessage(s2))); strings.Contains(got, `"title":"t"`) {
		t.Logf("escaped $ref alone: siblings kept (Gemini's 400 stays): %s", got)
	}
	// A "\u0024defs" beside a $ref is dropped as a sibling.
	s3 := `{"$ref":"#/$defs/A","\u0024defs":{"A":{"type":"string"}}}`
	t.Logf("escaped $defs beside $ref: %s", refOnly(json.RawMessage(s3)))
}

// A root that keeps its "definitions" as "$defs" renames every
// "definitions" member the walk meets, at any depth: a nested node that
// has both "$defs" and "definitions" gets two "$defs" members (the second
// wins in Gemini's decoder, the first is lost); a reference to a nested
// definitions ("#/properties/p/definitions/B") dangles.
func TestReview62kNestedDefinitionsRenamed(t *testing.T) {
	s := `{"$ref":"#/definitions/R","definitions":{"R":{"type":"object","definitions":{"B":{"type":"string"}},"$defs":{"C":{"type":"integer"}},` +
		`"properties":{"p":{"$ref":"#/definitions/R/definitions/B"},"q":{"$ref":"#/definitions/R/$defs/C"},"r":{"$ref":"#/definitions/R","title":"self"}}}}}`
	out := string(refOnly(json.RawMessage(s)))
	t.Logf("out %s", out)
	if strings.Contains(out, `"#/$defs/R/definitions/B"`) && !strings.Contains(out, `"definitions":{"B"`) {
		t.Errorf("R's own \"definitions\" became \"$defs\" but the reference into it still says definitions: dangles")
	}
	if strings.Count(out, `"$defs":`) > 2 {
		t.Errorf("two \"$defs\" members in one object (R's own and its renamed definitions): a decoder keeps one: %s", out)
	}
}

// refOnly on shapes that are no plain schema: booleans, items arrays,
// patternProperties, $ref values that are no string, whitespace, unicode
// and invalid UTF-8. Output must be valid JSON and, for nodes without
// $ref, unchanged.
func TestReview62kRefOnlyShapes(t *testing.T) {
	for _, s := range []string{
		`{"items":[{"$ref":"#/$defs/A","title":"x"},true,false,{"type":"string"}],"$defs":{"A":true}}`,
		`{"patternProperties":{"^\\$ref$":{"$ref":"#/$defs/A","description":"d"}},"$defs":{"A":{}}}`,
		`{"$ref":{"nested":"$ref"},"title":"x"}`,
		`{"$ref":null}`,
		` { "$ref" : "#/a" , "title" : "x" , "$comment" : "c" } `,
		`{"properties":{"a":{"$ref":"#/x","const":{"$ref":"keep","title":"keep"}}}}`,
		`{"properties":{"a":{"type":"object","enum":[{"$ref":"#/x","title":"keep"}]}}}`,
		"{\"$ref\":\"#/a\xff\",\"title\":\"\xfe\"}",
		`{"additionalProperties":{"$ref":"#/a","x":1},"not":{"$ref":"#/b","y":[1,{"$ref":2}]}}`,
		`{"$ref":"#/a","$ref":"#/b","title":"dup"}`,
		`{"anyOf":"$ref","oneOf":{"$ref":"#/a","t":1}}`,
		`{"dependentSchemas":{"x":{"$ref":"#/a","t":1}},"dependencies":{"y":{"$ref":"#/a","t":1}}}`,
	} {
		out := refOnly(json.RawMessage(s))
		if json.Valid([]byte(s)) && !json.Valid(out) {
			t.Errorf("invalid output for %s: %s", s, out)
		}
		t.Logf("%s\n  -> %s", s, out)
	}
}

// Random schemas: the output stays valid JSON and the walk ends.
func TestReview62kRefOnlyRandom(t *testing.T) {
	r := rand.New(rand.NewSource(62))
	keys := []string{`"$ref"`, `"\u0024ref"`, `"title"`, `"items"`, `"properties"`, `"$defs"`, `"definitions"`, `"anyOf"`, `"default"`, `"enum"`, `"not"`, `"patternProperties"`, `"x"`, `"$id"`}
	var gen func(d int) string
	gen = func(d int) string {
		switch k := r.Intn(8); {
		case d > 6 || k == 0:
			return []string{`"#/definitions/a"`, `"#/$defs/a"`, `true`, `1`, `null`, `"$ref"`, `"\"$ref\""`}[r.Intn(7)]
		case k == 1:
			n := r.Intn(4)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = gen(d + 1)
			}
			return "[" + strings.Join(parts, ",") + "]"
		default:
			n := r.Intn(5)
			parts := make([]string, n)
			for i := range parts {
				parts[i] = keys[r.Intn(len(keys))] + ":" + gen(d+1)
			}
			return "{" + strings.Join(parts, ",") + "}"
		}
	}
	bad := 0
	for i := 0; i < 20_000; i++ {
		s := gen(0)
		out := refOnly(json.RawMessage(s))
		if json.Valid([]byte(s)) && !json.Valid(out) {
			if bad++; bad <= 5 {
				t.Errorf("invalid output:\n in  %s\n out %s", s, out)
			}
		}
	}
}

// A tool result holding an escaped "\u0024ref" member goes as an object,
// where Gemini decodes a $ref (review 62f's failure, every later turn).
func TestReview62kEscapedRefToolResult(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"hi"},{"role":"assistant","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"{\"\\u0024ref\":\"#/x\"}"}],"tools":[{"type":"function","function":{"name":"f","parameters":{"type":"object"}}}]}`
	out, err := Translate(&provider.Request{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	i := strings.Index(s, `"functionResponse"`)
	if i >= 0 {
		t.Logf("functionResponse: %s", s[i:min(len(s), i+160)])
	}
	if strings.Contains(s, `"response":{"\u0024ref"`) || strings.Contains(s, `"response":{"$ref"`) {
		t.Errorf("a $ref (escaped) tool result goes to Gemini as an object: %s", s[i:min(len(s), i+160)])
	}
}

// Review 62k: each level of the walk scans what lies below it, so a deep
// schema with a large payload held a core for seconds on every attempt
// (4,000 levels of items over 2 MB: 10 s). Past the bounds (64 levels,
// 256 KiB) the schema goes as the client wrote it, untouched: the walk is
// never made.
func TestReview62kSchemaPastTheBoundsIsNotWalked(t *testing.T) {
	for _, c := range []struct{ depth, n int }{{65, 10}, {10, 300_000}, {4000, 1_000_000}} {
		s := json.RawMessage(deepSchema(c.depth, c.n))
		if out := refOnly(s); &out[0] != &s[0] || len(out) != len(s) {
			t.Errorf("depth %d, %d bytes: the schema was walked (%d bytes out)", c.depth, len(s), len(out))
		}
	}
	within := json.RawMessage(deepSchema(20, 1000))
	if out := refOnly(within); string(out) == string(within) {
		t.Errorf("a schema within the bounds, with siblings beside its $ref, was not rewritten")
	}
}
