package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/rawjson"
)

// tools translates tools' functionDeclarations into function tools.
// Gemini's own tools (googleSearch, codeExecution, urlContext…) run at
// Google alone.
func tools(top object) ([]chat.Tool, error) {
	list, err := top.list("tools", "request")
	if err != nil {
		return nil, err
	}
	var out []chat.Tool
	for i, raw := range list {
		where := fmt.Sprintf("tools[%d]", i)
		t, err := obj(raw, where)
		if err != nil {
			return nil, err
		}
		for _, k := range slices.Sorted(maps.Keys(t)) { // one name for one body, whichever run reads it
			if k != "functionDeclarations" && set(t[k]) {
				return nil, unsupported(where+"."+k, "Gemini's own tool "+k)
			}
		}
		decls, err := t.list("functionDeclarations", where)
		if err != nil {
			return nil, err
		}
		for j, d := range decls {
			f, err := declaration(d, fmt.Sprintf("%s.functionDeclarations[%d]", where, j))
			if err != nil {
				return nil, err
			}
			out = append(out, chat.Tool{Type: "function", Function: f})
		}
	}
	return out, nil
}

// declaration translates one FunctionDeclaration: name, description, and
// parametersJsonSchema as sent or parameters (Gemini's OpenAPI subset)
// made JSON Schema. response, responseJsonSchema and behavior are dropped.
func declaration(raw json.RawMessage, where string) (chat.Function, error) {
	d, err := obj(raw, where)
	if err != nil {
		return chat.Function{}, err
	}
	if d == nil {
		return chat.Function{}, invalid(where, "must be a FunctionDeclaration object")
	}
	var f chat.Function
	if f.Name, err = d.str("name", where); err != nil {
		return f, err
	}
	if f.Name == "" {
		return f, invalid(where+".name", "must not be empty")
	}
	if f.Description, err = d.str("description", where); err != nil {
		return f, err
	}
	switch {
	case set(d["parametersJsonSchema"]):
		if _, err := obj(d["parametersJsonSchema"], where+".parametersJsonSchema"); err != nil {
			return f, err
		}
		f.Parameters = lowerTypes(d["parametersJsonSchema"])
	case set(d["parameters"]):
		if f.Parameters, err = jsonSchema(d["parameters"], where+".parameters"); err != nil {
			return f, err
		}
	default:
		f.Parameters = json.RawMessage(`{"type":"object","properties":{}}`)
	}
	return f, nil
}

// toolChoice translates toolConfig.functionCallingConfig: AUTO (and
// VALIDATED, which constrains the model's calls to the schemas: no
// canonical equivalent) → auto, ANY → required, ANY naming one function →
// that function, ANY naming several → allowed_tools required, AUTO naming
// some → allowed_tools auto, NONE → none. Nil without tools or a mode.
func toolChoice(top object, tools bool) (any, error) {
	tc, err := obj(top["toolConfig"], "toolConfig")
	if err != nil || tc == nil {
		return nil, err
	}
	const where = "toolConfig.functionCallingConfig"
	fc, err := obj(tc["functionCallingConfig"], where)
	if err != nil || fc == nil || !tools {
		return nil, err
	}
	mode, err := fc.str("mode", where)
	if err != nil {
		return nil, err
	}
	names, err := fc.list("allowedFunctionNames", where)
	if err != nil {
		return nil, err
	}
	var allowed []string
	for i, n := range names {
		var s string
		if json.Unmarshal(n, &s) != nil {
			return nil, invalid(fmt.Sprintf("%s.allowedFunctionNames[%d]", where, i), "must be a string")
		}
		allowed = append(allowed, s)
	}
	listed := func(m string) any {
		ts := make([]map[string]any, len(allowed))
		for i, n := range allowed {
			ts[i] = map[string]any{"type": "function", "function": map[string]string{"name": n}}
		}
		return map[string]any{"type": "allowed_tools", "allowed_tools": map[string]any{"mode": m, "tools": ts}}
	}
	switch strings.ToUpper(mode) {
	case "", "MODE_UNSPECIFIED", "AUTO", "VALIDATED":
		if len(allowed) > 0 {
			return listed("auto"), nil
		}
		return "auto", nil
	case "NONE":
		return "none", nil
	case "ANY":
		switch len(allowed) {
		case 0:
			return "required", nil
		case 1:
			return map[string]any{"type": "function", "function": map[string]string{"name": allowed[0]}}, nil
		}
		return listed("required"), nil
	}
	return nil, invalid(where+".mode", fmt.Sprintf("must be AUTO, ANY, NONE or VALIDATED, not %q", mode))
}

// jsonSchema is a Schema in Gemini's OpenAPI 3.0 subset (parameters,
// responseSchema) as JSON Schema: type names lower-cased ("OBJECT" →
// "object"), nullable as a type list with "null", propertyOrdering
// dropped (Gemini's alone) once it has put the properties in its order
// (those it does not name after them, as sent): OpenAI's structured
// outputs and Claude's tools write an answer's members in the schema's
// order, the order propertyOrdering gives Gemini. Everything else stays
// where the client put it, its bytes as sent (build 69p: the schema was
// decoded into maps and written again, its properties sorted and
// propertyOrdering lost, so a "reasoning" asked for before the "answer"
// came after it); as lowerTypes, rewritten in place by schemaNode.
func jsonSchema(raw json.RawMessage, where string) (json.RawMessage, error) {
	if !json.Valid(raw) { // rawjson.Scan walks valid JSON only
		return nil, invalid(where, "must be a Schema object")
	}
	if _, ok := rawjson.ScanObject(raw); !ok {
		return nil, invalid(where, "must be a Schema object")
	}
	out, changed := schemaNode(raw, 0, true)
	if !changed {
		return raw, nil
	}
	return out, nil
}

// geminiTypes are Gemini's Type names (google.ai.generativelanguage's
// Type enum) as a JSON Schema type name.
var geminiTypes = map[string]string{
	"STRING": "string", "NUMBER": "number", "INTEGER": "integer", "BOOLEAN": "boolean",
	"ARRAY": "array", "OBJECT": "object", "NULL": "null",
}

// lowerTypes is a JSON Schema (parametersJsonSchema, responseJsonSchema)
// with Gemini's upper-case type names ("OBJECT", "STRING": Google takes
// them there, and Gemini CLI's model router writes its responseJsonSchema
// so) as JSON Schema's ("object", "string"), which OpenAI's and
// Anthropic's schema validators want (they refuse "OBJECT"). Only the
// type of schema nodes changes: every member stays where the client put
// it, its bytes as sent (hostile 69n: the schema was decoded into maps and
// written again, its properties in alphabetical order, which is the order
// a structured answer's members are written in, and "<" as "\u003c"); a
// schema holding no such name is returned byte for byte, as is one that is
// not a JSON object.
func lowerTypes(raw json.RawMessage) json.RawMessage {
	found := false
	for name := range geminiTypes {
		if bytes.Contains(raw, []byte(`"`+name+`"`)) {
			found = true
			break
		}
	}
	if !found || !json.Valid(raw) { // rawjson.Scan walks valid JSON only
		return raw
	}
	out, changed := schemaNode(raw, 0, false)
	if !changed {
		return raw
	}
	return out
}

// schemaNode is one schema node, v, with its type names and those of the
// schemas it holds lowered, and whether any was; v itself when it is not
// an object or lies deeper than maxSchemaDepth. Every member stays where
// it was, its bytes as sent but the values it converts. openAPI is
// Gemini's OpenAPI Schema (jsonSchema): every type name is lower-cased
// (not only Gemini's upper-case ones), nullable: true makes a type a list
// with "null", and propertyOrdering orders properties and is dropped,
// with nullable.
func schemaNode(v []byte, depth int, openAPI bool) ([]byte, bool) {
	sc, ok := rawjson.ScanObject(v)
	if !ok || depth > maxSchemaDepth {
		return v, false
	}
	var order []string
	nullable := false
	if openAPI {
		order = propertyOrdering(rawjson.Member(v, "propertyOrdering"))
		nullable = string(rawjson.Member(v, "nullable")) == "true" // the last one, as encoding/json reads it
	}
	lower := func(x []byte) ([]byte, bool) {
		if s, ok := rawjson.String(x); ok {
			if l, ok := typeName(s, openAPI); ok {
				return rawjson.AppendString(nil, l), true
			}
		}
		return x, false
	}
	sub := func(x []byte) ([]byte, bool) { return schemaNode(x, depth+1, openAPI) }
	out, changed := []byte{'{'}, false
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		nv, c := val, false
		switch k, _ := rawjson.String(key); k {
		case "propertyOrdering", "nullable":
			if openAPI {
				changed = true
				continue
			}
		case "type":
			if _, ok := rawjson.String(val); ok {
				nv, c = lower(val)
				if nullable {
					nv, c = append(append([]byte{'['}, nv...), `,"null"]`...), true
				}
			} else {
				nv, c = eachElement(val, lower)
			}
		case "properties":
			var o bool
			if nv, o = ordered(val, order); o {
				c = true
			}
			if nv, o = eachMember(nv, sub); o {
				c = true
			}
		case "patternProperties", "$defs", "definitions", "dependentSchemas":
			nv, c = eachMember(val, sub)
		case "items", "additionalProperties", "not", "contains", "if", "then", "else",
			"propertyNames", "unevaluatedProperties", "unevaluatedItems", "additionalItems":
			if nv, c = eachElement(val, sub); !c { // draft 4's items as a list
				nv, c = sub(val)
			}
		case "anyOf", "oneOf", "allOf", "prefixItems":
			nv, c = eachElement(val, sub)
		}
		changed = changed || c
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, key...), ':'), nv...)
	}
	return append(out, '}'), changed
}

// typeName is a schema's type name s as JSON Schema's, and whether that
// differs: Gemini's upper-case names in a JSON Schema, any name not in
// lower case in an OpenAPI one.
func typeName(s string, openAPI bool) (string, bool) {
	if openAPI {
		l := strings.ToLower(s)
		return l, l != s
	}
	l, ok := geminiTypes[s]
	return l, ok
}

// propertyOrdering is the names of a propertyOrdering list, v, in order;
// none when v is not a list (an element that is not a string is skipped).
func propertyOrdering(v []byte) []string {
	sc, ok := rawjson.ScanArray(v)
	if !ok {
		return nil
	}
	var names []string
	for _, x, ok := sc.Next(); ok; _, x, ok = sc.Next() {
		if s, ok := rawjson.String(x); ok {
			names = append(names, s)
		}
	}
	return names
}

// ordered is the properties object v with the members order names first,
// in its order, then the others as sent, and whether that moved any; v
// when order is empty or v not an object. A name order repeats or v lacks
// is passed over; members v repeats go together where their name does.
func ordered(v []byte, order []string) ([]byte, bool) {
	sc, ok := rawjson.ScanObject(v)
	if !ok || len(order) == 0 {
		return v, false
	}
	type member struct {
		name     string
		key, val []byte
	}
	var ms []member
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		n, _ := rawjson.String(key)
		ms = append(ms, member{n, key, val})
	}
	taken := make([]bool, len(ms))
	next := make([]int, 0, len(ms)) // ms's indices in their new order
	for _, n := range order {
		for i := range ms {
			if !taken[i] && ms[i].name == n {
				taken[i] = true
				next = append(next, i)
			}
		}
	}
	for i := range ms {
		if !taken[i] {
			next = append(next, i)
		}
	}
	moved := false
	out := []byte{'{'}
	for j, i := range next {
		moved = moved || i != j
		if j > 0 {
			out = append(out, ',')
		}
		out = append(append(append(out, ms[i].key...), ':'), ms[i].val...)
	}
	if !moved {
		return v, false
	}
	return append(out, '}'), true
}

// eachMember is the object v with fn applied to each member's value, in
// order, and whether fn changed any; v when it is not an object.
func eachMember(v []byte, fn func([]byte) ([]byte, bool)) ([]byte, bool) {
	sc, ok := rawjson.ScanObject(v)
	if !ok {
		return v, false
	}
	out, changed := []byte{'{'}, false
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		nv, c := fn(val)
		changed = changed || c
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(append(append(out, key...), ':'), nv...)
	}
	return append(out, '}'), changed
}

// eachElement is eachMember for the elements of the array v.
func eachElement(v []byte, fn func([]byte) ([]byte, bool)) ([]byte, bool) {
	sc, ok := rawjson.ScanArray(v)
	if !ok {
		return v, false
	}
	out, changed := []byte{'['}, false
	for _, val, ok := sc.Next(); ok; _, val, ok = sc.Next() {
		nv, c := fn(val)
		changed = changed || c
		if len(out) > 1 {
			out = append(out, ',')
		}
		out = append(out, nv...)
	}
	return append(out, ']'), changed
}

// maxSchemaDepth bounds schemaNode's recursion: deeper levels are left
// as sent (encoding/json already bounds the nesting it decodes).
const maxSchemaDepth = 64
