package gemini

import (
	"encoding/json"
	"strings"
	"testing"
)

// Review 62h: refOnly reads every object holding a "$ref" key as a schema
// node, but under "properties" the keys are property names. A tool whose
// parameters have a property named "$ref" (an OpenAPI reference object, a
// JSON-pointer tool) loses its sibling properties: the schema Gemini gets
// has no "name", while "required" still lists it.
func TestReview62hPropertyNamedRefKeepsItsSiblings(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"$ref":{"type":"string"},"name":{"type":"string"}},"required":["$ref","name"]}`)
	got := string(refOnly(schema))
	if !strings.Contains(got, `"name":{"type":"string"}`) {
		t.Errorf("refOnly dropped the property \"name\" beside a property named \"$ref\":\n in  %s\n out %s", schema, got)
	}
}

// Review 62h: a value that is data, not a schema (an example, a default, a
// const), holding "$ref" is rewritten too.
func TestReview62hRefInsideExamplesIsData(t *testing.T) {
	schema := json.RawMessage(`{"type":"object","properties":{"ptr":{"type":"object","default":{"$ref":"#/a","note":"x"}}}}`)
	got := string(refOnly(schema))
	if !strings.Contains(got, `"note":"x"`) {
		t.Errorf("refOnly rewrote a default value (data, not a schema):\n in  %s\n out %s", schema, got)
	}
}

// Review 62h: zod-to-json-schema with a name (its default definitionPath
// "definitions") writes {"$ref":"#/definitions/X","definitions":{…}}:
// refOnly keeps the $ref and drops what it points at, so the schema Gemini
// gets has a dangling reference.
func TestReview62hTopLevelRefKeepsWhatItNames(t *testing.T) {
	schema := json.RawMessage(`{"$ref":"#/definitions/Person","definitions":{"Person":{"type":"object","properties":{"name":{"type":"string"}}}},"$schema":"http://json-schema.org/draft-07/schema#"}`)
	got := string(refOnly(schema))
	if strings.Contains(got, `"#/definitions/Person"`) && !strings.Contains(got, `"Person":{`) {
		t.Errorf("refOnly left a $ref to a definition it dropped:\n in  %s\n out %s", schema, got)
	}
}
