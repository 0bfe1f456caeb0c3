package messages

import (
	"bytes"
	"encoding/json"

	"github.com/detour-llm/detour/internal/rawjson"
)

// outFormat is the canonical response_format the door writes for
// Anthropic's structured output.
type outFormat struct {
	Type       string        `json:"type"`
	JSONSchema outJSONSchema `json:"json_schema"`
}

type outJSONSchema struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"schema"`
}

// formatName is the json_schema name the canonical request carries:
// Anthropic's format has none, and OpenAI requires one.
const formatName = "output"

// responseFormat translates Anthropic's structured output —
// output_config.format, or output_format (the structured-outputs beta's
// name for it) — {"type":"json_schema","schema":{…}} into the canonical
// response_format json_schema (docs/doors.md). Anthropic answers the JSON
// as a text block, as OpenAI and Gemini models answer response_format, so
// the answer needs no translation of its own. strict is not sent: the
// schema guides the target's model, and OpenAI's strict mode refuses
// schemas Anthropic takes (optional properties). A format type other than
// json_schema is Anthropic's to judge (Unsupported); a json_schema without
// an object schema, or the format under both names, is malformed.
func responseFormat(in *inRequest) (*outFormat, error) {
	raw, field := in.OutputFormat, "output_format"
	if in.OutputConfig != nil && rawjson.Set(in.OutputConfig.Format) {
		if rawjson.Set(raw) {
			return nil, invalid("output_format", "give the format once: output_config.format (output_format is its older name)")
		}
		raw, field = in.OutputConfig.Format, "output_config.format"
	}
	if !rawjson.Set(raw) {
		return nil, nil
	}
	var f struct {
		Type   string          `json:"type"`
		Schema json.RawMessage `json:"schema"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		return nil, decodeError(field, err)
	}
	if f.Type != "json_schema" {
		return nil, unsupported(field+".type", "structured output of type %q", f.Type)
	}
	if s := bytes.TrimSpace(f.Schema); !rawjson.Set(s) || s[0] != '{' {
		return nil, invalid(field+".schema", "want a JSON Schema object")
	}
	return &outFormat{Type: "json_schema", JSONSchema: outJSONSchema{Name: formatName, Schema: f.Schema}}, nil
}
