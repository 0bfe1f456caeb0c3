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
// dropped (Gemini's alone); everything else as sent.
func jsonSchema(raw json.RawMessage, where string) (json.RawMessage, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, invalid(where, "must be a Schema object")
	}
	if _, ok := v.(map[string]any); !ok {
		return nil, invalid(where, "must be a Schema object")
	}
	b, err := json.Marshal(fromOpenAPI(v, 0))
	if err != nil {
		return nil, invalid(where, "must be a Schema object")
	}
	return b, nil
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
	out, changed := lowerNode(raw, 0)
	if !changed {
		return raw
	}
	return out
}

// lowerNode is one schema node, v, with its type names and those of the
// schemas it holds lowered, and whether any was; v itself when it is not
// an object or lies deeper than maxSchemaDepth.
func lowerNode(v []byte, depth int) ([]byte, bool) {
	sc, ok := rawjson.ScanObject(v)
	if !ok || depth > maxSchemaDepth {
		return v, false
	}
	sub := func(x []byte) ([]byte, bool) { return lowerNode(x, depth+1) }
	out, changed := []byte{'{'}, false
	for key, val, ok := sc.Next(); ok; key, val, ok = sc.Next() {
		nv, c := val, false
		switch k, _ := rawjson.String(key); k {
		case "type":
			if s, ok := rawjson.String(val); ok {
				if l, ok := geminiTypes[s]; ok {
					nv, c = rawjson.AppendString(nil, l), true
				}
			} else {
				nv, c = eachElement(val, func(x []byte) ([]byte, bool) {
					if s, ok := rawjson.String(x); ok {
						if l, ok := geminiTypes[s]; ok {
							return rawjson.AppendString(nil, l), true
						}
					}
					return x, false
				})
			}
		case "properties", "patternProperties", "$defs", "definitions", "dependentSchemas":
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

// maxSchemaDepth bounds fromOpenAPI's recursion: deeper levels are left
// as sent (encoding/json already bounds the nesting it decodes).
const maxSchemaDepth = 64

// fromOpenAPI converts one decoded schema value.
func fromOpenAPI(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > maxSchemaDepth {
		return v
	}
	out := make(map[string]any, len(m))
	for k, x := range m {
		switch k {
		case "propertyOrdering", "nullable":
		case "type":
			if s, ok := x.(string); ok {
				x = strings.ToLower(s)
			}
			out[k] = x
		case "properties", "$defs", "definitions":
			if props, ok := x.(map[string]any); ok {
				conv := make(map[string]any, len(props))
				for n, p := range props {
					conv[n] = fromOpenAPI(p, depth+1)
				}
				x = conv
			}
			out[k] = x
		case "items", "additionalProperties", "not":
			out[k] = fromOpenAPI(x, depth+1)
		case "anyOf", "oneOf", "allOf", "prefixItems":
			if l, ok := x.([]any); ok {
				conv := make([]any, len(l))
				for i, p := range l {
					conv[i] = fromOpenAPI(p, depth+1)
				}
				x = conv
			}
			out[k] = x
		default:
			out[k] = x
		}
	}
	if n, _ := m["nullable"].(bool); n {
		if t, ok := out["type"].(string); ok {
			out["type"] = []any{t, "null"}
		}
	}
	return out
}
