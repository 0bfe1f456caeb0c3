package gemini

import (
	"strings"
	"testing"
)

// TestOpenAPISchemaKeepsOrder (build 69p): a Schema in Gemini's OpenAPI
// subset (responseSchema, a declaration's parameters) was decoded into Go
// maps and written again, its properties sorted and propertyOrdering
// dropped: OpenAI's structured outputs and Claude's tools write members in
// the schema's order, so an answer asked for "reasoning" then "answer"
// came the other way round. The properties go in propertyOrdering's order
// (those it does not name after, as sent), else as sent; every other
// member where it was, its bytes as written ("<" stays "<", 1.50 stays
// 1.50), and a property named propertyOrdering or nullable is data.
func TestOpenAPISchemaKeepsOrder(t *testing.T) {
	const req = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"generationConfig":{"responseMimeType":"application/json",
		"responseSchema":{"type":"OBJECT","description":"x < y & z","properties":{"zeta":{"type":"STRING","nullable":true},"answer":{"type":"INTEGER","maximum":1.50},"reasoning":{"type":"STRING"},"extra":{"type":"BOOLEAN"}},"propertyOrdering":["reasoning","ghost","answer","reasoning"],"required":["reasoning","answer"]}},
		"tools":[{"functionDeclarations":[{"name":"f","parameters":{"type":"OBJECT","properties":{"zeta":{"type":"STRING"},"alpha":{"type":"ARRAY","items":{"type":"OBJECT","propertyOrdering":["y","x"],"properties":{"x":{"type":"NUMBER"},"y":{"type":"NUMBER"}}}},"propertyOrdering":{"type":"STRING"},"nullable":{"type":"BOOLEAN","enum":["OBJECT"]}}}}]}]}`
	tr, err := Translate([]byte(req), "r", false)
	if err != nil {
		t.Fatal(err)
	}
	body := string(tr.Body)
	for _, w := range []string{
		`"schema":{"type":"object","description":"x < y & z","properties":{"reasoning":{"type":"string"},"answer":{"type":"integer","maximum":1.50},"zeta":{"type":["string","null"]},"extra":{"type":"boolean"}},"required":["reasoning","answer"]}`,
		`"parameters":{"type":"object","properties":{"zeta":{"type":"string"},"alpha":{"type":"array","items":{"type":"object","properties":{"y":{"type":"number"},"x":{"type":"number"}}}},"propertyOrdering":{"type":"string"},"nullable":{"type":"boolean","enum":["OBJECT"]}}}`,
	} {
		if !strings.Contains(body, w) {
			t.Errorf("body %s\nlacks %s", body, w)
		}
	}
}

// TestOpenAPISchemaAsSent: a schema the conversion need not change goes
// byte for byte; one that is not an object is refused, as before.
func TestOpenAPISchemaAsSent(t *testing.T) {
	const s = `{"type": "object", "properties": {"b": {"type": "string"}, "a": {"type": "number"}}}`
	if got, err := jsonSchema([]byte(s), "p"); err != nil || string(got) != s {
		t.Errorf("jsonSchema(%s) = %s, %v", s, got, err)
	}
	for _, bad := range []string{`[]`, `"OBJECT"`, `{`} {
		if _, err := jsonSchema([]byte(bad), "p"); err == nil {
			t.Errorf("jsonSchema(%s) accepted", bad)
		}
	}
}
