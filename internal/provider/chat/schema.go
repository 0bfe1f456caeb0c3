package chat

import (
	"bytes"
	"encoding/json"

	"github.com/detour-llm/detour/internal/rawjson"
)

// emptyObject is the schema of a function without parameters.
var emptyObject = json.RawMessage(`{"type":"object","properties":{}}`)

// ObjectSchema returns a function's parameters (valid JSON: a parsed
// request's) as a schema that says its type, which Anthropic requires of
// an input_schema: none, null or {} is {"type":"object","properties":{}};
// another object without "type" gains "type":"object" (OpenAI reads {} as
// a JSON Schema object and clients send it: docs/doors.md). Anything else
// goes as it came.
func ObjectSchema(p json.RawMessage) json.RawMessage {
	t := bytes.TrimSpace(p)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return emptyObject
	}
	sc, ok := rawjson.ScanObject(t)
	if !ok {
		return p
	}
	if _, _, some := sc.Next(); !some {
		return emptyObject
	}
	if rawjson.Member(t, "type") != nil {
		return p
	}
	return rawjson.WithFirst(t, "type", []byte(`"object"`))
}

// AnswerText is the message content a structured answer's function
// arguments stand for (the answer tool or function that serves
// response_format at Claude and at Gemini before 3): the arguments,
// compacted, or, when wrapped (ValueSchema), their "value". Arguments that
// are not what the function asked for pass as they came.
func AnswerText(args []byte, wrapped bool) string {
	var buf bytes.Buffer
	if json.Compact(&buf, args) != nil {
		return string(args)
	}
	if wrapped {
		var w struct {
			Value json.RawMessage `json:"value"`
		}
		if json.Unmarshal(buf.Bytes(), &w) == nil && len(w.Value) > 0 {
			return string(w.Value)
		}
	}
	return buf.String()
}

// PropertiesSchema is ObjectSchema with "properties":{} added to an object
// schema that has none: OpenAI refuses an object schema without properties
// ("object schema missing properties"), and Gemini a function without them
// under mode ANY, which Anthropic and MCP servers write for a tool without
// arguments ({"type":"object"}).
func PropertiesSchema(p json.RawMessage) json.RawMessage {
	p = ObjectSchema(p)
	if t, _ := rawjson.String(rawjson.Member(p, "type")); t == "object" && rawjson.Member(p, "properties") == nil {
		return rawjson.WithLast(p, "properties", []byte(`{}`))
	}
	return p
}

// ValueSchema wraps schema, a JSON Schema whose top level is not an object
// (an array, a string, a $ref), as the object schema {"type":"object",
// "properties":{"value":schema},"required":["value"]}: Claude's tool input
// and Gemini's function parameters describe objects only, so a structured
// answer of another shape travels as the "value" of one. The schema's
// $defs and definitions are carried to the wrapper's root too, where its
// "#/$defs/…" references are resolved (review 47b: they pointed at nothing).
func ValueSchema(schema json.RawMessage) (json.RawMessage, error) {
	w := map[string]any{"type": "object",
		"properties": map[string]json.RawMessage{"value": schema}, "required": []string{"value"}}
	for _, k := range []string{"$defs", "definitions"} {
		if d := rawjson.Member(schema, k); d != nil {
			w[k] = json.RawMessage(d)
		}
	}
	return rawjson.Marshal(w)
}
