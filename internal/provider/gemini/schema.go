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
// case), or when it is not JSON Detour can walk. Only schema nodes: the
// map under "properties" names properties (one may be called "$ref": an
// OpenAPI reference object), and "default", "examples", "const" and
// "enum" hold data (review 62h). A root whose "$ref" names its
// "definitions" (zod-to-json-schema's, draft 7's) keeps them as "$defs",
// its references rewritten to match.
func refOnly(schema json.RawMessage) json.RawMessage {
	if !bytes.Contains(schema, refMark) || !json.Valid(schema) {
		return schema
	}
	w := refWalk{defs: rootDefinitions(bytes.TrimSpace(schema))}
	return w.node(nil, bytes.TrimSpace(schema))
}

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

// keyIn reports whether the member key k is one of names.
func keyIn(k []byte, names []string) bool {
	for _, n := range names {
		if rawjson.KeyIs(k, n) {
			return true
		}
	}
	return false
}

// node appends the schema node v, rewritten, to b.
func (w refWalk) node(b, v []byte) []byte {
	obj, ok := rawjson.ScanObject(v)
	if !ok || !bytes.Contains(v, refMark) {
		return w.copyRef(b, v)
	}
	hasRef := false
	for k, _, ok := obj.Next(); ok; k, _, ok = obj.Next() {
		hasRef = hasRef || rawjson.KeyIs(k, "$ref")
	}
	obj, _ = rawjson.ScanObject(v)
	b = append(b, '{')
	n := 0
	for k, m, ok := obj.Next(); ok; k, m, ok = obj.Next() {
		dollar := len(k) > 1 && k[1] == '$'
		defs := w.defs && rawjson.KeyIs(k, "definitions")
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
		case rawjson.KeyIs(k, "$ref"):
			b = append(append(b, k...), ':')
			b = w.copyRef(b, m)
		case keyIn(k, schemaMembers):
			b = append(append(b, k...), ':')
			if m[0] == '[' {
				b = w.each(b, m, false)
			} else {
				b = w.node(b, m)
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
		b = w.node(b, m)
	}
	return append(b, end)
}

// copyRef appends v, a "$ref" value or a value that is no schema node, as
// it is, but for a reference to the root's "definitions", which name
// "$defs" once they are moved there.
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
		ref = ref || rawjson.KeyIs(k, "$ref")
		defs = defs || rawjson.KeyIs(k, "definitions")
		dollarDefs = dollarDefs || rawjson.KeyIs(k, "$defs")
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
func refResponse(t []byte) bool { return bytes.Contains(t, refMark) }

// nameStart reports whether name starts as Gemini's function names must:
// with a letter or an underscore.
func nameStart(name string) bool {
	if name == "" {
		return true // Gemini judges an empty name; the translation says nothing of it
	}
	c := name[0]
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
