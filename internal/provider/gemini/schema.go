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

// refOnly returns schema with every node that has a "$ref" member kept to
// its "$"-members; schema itself when it has none (the common case), or
// when it is not JSON Detour can walk.
func refOnly(schema json.RawMessage) json.RawMessage {
	if !bytes.Contains(schema, refMark) || !json.Valid(schema) {
		return schema
	}
	out, _ := refNode(nil, bytes.TrimSpace(schema))
	return out
}

// refNode appends v, refOnly'd, to b, and reports whether it changed.
func refNode(b, v []byte) ([]byte, bool) {
	if !bytes.Contains(v, refMark) {
		return append(b, v...), false
	}
	switch v[0] {
	case '{':
		obj, _ := rawjson.ScanObject(v)
		hasRef := false
		for k, _, ok := obj.Next(); ok; k, _, ok = obj.Next() {
			hasRef = hasRef || rawjson.KeyIs(k, "$ref")
		}
		obj, _ = rawjson.ScanObject(v)
		b = append(b, '{')
		changed, n := false, 0
		for k, m, ok := obj.Next(); ok; k, m, ok = obj.Next() {
			if hasRef && !(len(k) > 1 && k[1] == '$') {
				changed = true
				continue
			}
			if n > 0 {
				b = append(b, ',')
			}
			n++
			b = append(append(b, k...), ':')
			var c bool
			b, c = refNode(b, m)
			changed = changed || c
		}
		return append(b, '}'), changed
	case '[':
		arr, _ := rawjson.ScanArray(v)
		b = append(b, '[')
		changed, n := false, 0
		for _, m, ok := arr.Next(); ok; _, m, ok = arr.Next() {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			var c bool
			b, c = refNode(b, m)
			changed = changed || c
		}
		return append(b, ']'), changed
	}
	return append(b, v...), false
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
