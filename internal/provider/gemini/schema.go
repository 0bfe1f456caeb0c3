package gemini

import (
	"bytes"
	"encoding/json"

	"github.com/detour-llm/detour/internal/rawjson"
)

// Schemas Gemini takes (docs/doors.md, "Chat Completions to Claude and
// Gemini targets"). Gemini refuses a JSON schema node that has "$ref" and
// anything else but "$"-members ("If $ref is set on a sub-schema, no other
// properties, except for those starting as a $, may be set": its
// responseJsonSchema reference; the API's 400 "$ref … was set alongside
// unsupported fields"), where OpenAI and Anthropic take it, and pydantic's
// and zod's own schemas put a title, a description or examples beside a
// $ref (review 62f: every turn of such a client was a 400 on a Gemini-only
// route). refOnly drops those siblings: a $ref node says what the schema
// it names says.

// refMark is how a "$ref" member's key is written, unescaped.
var refMark = []byte(`"$ref"`)

// refOnly returns schema with every schema node that has a "$ref" member
// kept to its "$"-members; schema itself when it has none (the common
// case), when it is not JSON Detour can walk, or when it is past what a
// walk may cost (refMaxBytes, refMaxDepth). Only schema nodes: the map under
// "properties" names properties (one may be called "$ref": an OpenAPI
// reference object), and "default", "examples", "const" and "enum" hold
// data (review 62h). A root whose "$ref" names its "definitions"
// (zod-to-json-schema's, draft 7's) keeps them as "$defs", its references
// rewritten to match. Keys are read as written: an escaped "\u0024ref" is
// no "$ref" here (review 62k: read as one, the node lost its reference
// and accepted anything); Gemini judges it.
func refOnly(schema json.RawMessage) json.RawMessage {
	s := bytes.TrimSpace(schema)
	if !bytes.Contains(s, refMark) || len(s) > refMaxBytes || !rawjson.Within(s, refMaxDepth) {
		return schema
	}
	w := refWalk{defs: rootDefinitions(s)}
	return w.node(nil, s, true)
}

// Bounds on the walk: each level scans what lies below it, so its cost is
// the schema's size times its depth (review 62k: 4,000 levels of items
// over 2 MB took 10 s of a core, on every attempt). Real schemas are far
// inside both; past them the schema goes as the client wrote it.
const (
	refMaxBytes = 256 << 10
	refMaxDepth = 64
)

// refWalk rewrites a schema (refOnly); defs is set when the root's
// "definitions" become "$defs".
type refWalk struct{ defs bool }

// Members whose value is a schema, a list of schemas, or a map of names
// to schemas (JSON Schema's applicators); any other member is data or a
// keyword's own value, copied as it is.
var (
	schemaMembers = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains",
		"propertyNames", "additionalItems", "unevaluatedProperties", "unevaluatedItems"}
	schemaLists = []string{"anyOf", "oneOf", "allOf", "prefixItems"}
	schemaMaps  = []string{"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

// keyIs reports whether the member key k, as written (quotes included),
// is name: escapes are not decoded.
func keyIs(k []byte, name string) bool {
	return len(k) == len(name)+2 && string(k[1:len(k)-1]) == name
}

// keyIn reports whether the member key k is one of names.
func keyIn(k []byte, names []string) bool {
	for _, n := range names {
		if keyIs(k, n) {
			return true
		}
	}
	return false
}

// node appends the schema node v, rewritten, to b; root is set for the
// schema's root.
func (w refWalk) node(b, v []byte, root bool) []byte {
	obj, ok := rawjson.ScanObject(v)
	if !ok || !bytes.Contains(v, refMark) {
		return w.copyRef(b, v)
	}
	hasRef := false
	for k, _, ok := obj.Next(); ok; k, _, ok = obj.Next() {
		hasRef = hasRef || keyIs(k, "$ref")
	}
	obj, _ = rawjson.ScanObject(v)
	b = append(b, '{')
	n := 0
	for k, m, ok := obj.Next(); ok; k, m, ok = obj.Next() {
		dollar := len(k) > 1 && k[1] == '$'
		defs := root && w.defs && keyIs(k, "definitions")
		if hasRef && !dollar && !defs {
			continue
		}
		if n > 0 {
			b = append(b, ',')
		}
		n++
		switch {
		case defs:
			b = append(b, `"$defs":`...)
			b = w.each(b, m, true)
		case keyIs(k, "$ref"):
			b = append(append(b, k...), ':')
			b = w.copyRef(b, m)
		case keyIn(k, schemaMembers):
			b = append(append(b, k...), ':')
			if m[0] == '[' {
				b = w.each(b, m, false)
			} else {
				b = w.node(b, m, false)
			}
		case keyIn(k, schemaLists):
			b = append(append(b, k...), ':')
			b = w.each(b, m, false)
		case keyIn(k, schemaMaps):
			b = append(append(b, k...), ':')
			b = w.each(b, m, true)
		default:
			b = append(append(append(b, k...), ':'), m...)
		}
	}
	return append(b, '}')
}

// each appends v, a list of schemas or (named) a map of names to schemas,
// each rewritten; anything else as it is.
func (w refWalk) each(b, v []byte, named bool) []byte {
	var sc rawjson.Scan
	var ok bool
	if named {
		sc, ok = rawjson.ScanObject(v)
	} else {
		sc, ok = rawjson.ScanArray(v)
	}
	if !ok {
		return append(b, v...)
	}
	open, end := byte('['), byte(']')
	if named {
		open, end = '{', '}'
	}
	b = append(b, open)
	n := 0
	for k, m, ok := sc.Next(); ok; k, m, ok = sc.Next() {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		if named {
			b = append(append(b, k...), ':')
		}
		b = w.node(b, m, false)
	}
	return append(b, end)
}

// copyRef appends v, a "$ref" value or a value that is no schema node, as
// it is, but for a reference to the root's "definitions", which name
// "$defs" once they are moved there (nested "definitions" keep their
// name, and a path through them keeps it too).
func (w refWalk) copyRef(b, v []byte) []byte {
	const old, to = `"#/definitions/`, `"#/$defs/`
	if w.defs && bytes.HasPrefix(v, []byte(old)) {
		return append(append(b, to...), v[len(old):]...)
	}
	return append(b, v...)
}

// rootDefinitions reports whether schema's root has a "$ref" and
// "definitions" (and no "$defs"): they are kept, as "$defs".
func rootDefinitions(schema []byte) bool {
	obj, ok := rawjson.ScanObject(schema)
	if !ok {
		return false
	}
	ref, defs, dollarDefs := false, false, false
	for k, _, ok := obj.Next(); ok; k, _, ok = obj.Next() {
		ref = ref || keyIs(k, "$ref")
		defs = defs || keyIs(k, "definitions")
		dollarDefs = dollarDefs || keyIs(k, "$defs")
	}
	return ref && defs && !dollarDefs
}

// refResponse reports whether a tool's result, an object, holds a "$ref"
// member anywhere: Gemini 3 reads {"$ref": name} in a functionResponse as
// a reference to a media part of that name, and refuses the request when
// none is so named ("The referenced name … does not match to a
// display_name in the function_response.parts": review 62f, an MCP tool
// describing a schema broke every later turn). Such a result goes as its
// text, under "content".
func refResponse(t []byte) bool {
	if bytes.Contains(t, refMark) {
		return true
	}
	// An escaped key reads the same to Gemini ("\u0024ref", "$\u0072ef":
	// reviews 62k, 62l): a result with escapes is decoded to look.
	return bytes.Contains(t, []byte(`\u`)) && decodedRef(t)
}

// decodedRef reports whether the JSON t, decoded, has a "$ref" member at
// any depth.
func decodedRef(t []byte) bool {
	var v any
	if json.Unmarshal(t, &v) != nil {
		return false
	}
	var has func(any) bool
	has = func(v any) bool {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if k == "$ref" || has(e) {
					return true
				}
			}
		case []any:
			for _, e := range x {
				if has(e) {
					return true
				}
			}
		}
		return false
	}
	return has(v)
}

// nameStart reports whether name starts as Gemini's function names must:
// with a letter or an underscore.
func nameStart(name string) bool {
	if name == "" {
		return true // Gemini judges an empty name; the translation says nothing of it
	}
	c := name[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
