package gemini

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider"
)

// pydanticSchema is pydantic 2's model_json_schema() of a model with a
// nested model field given a title and examples (review 62f): its "$ref"
// node has siblings, which Gemini refuses.
const pydanticSchema = `{"$defs":{"Addr":{"properties":{"city":{"title":"City","type":"string"}},"required":["city"],"title":"Addr","type":"object"}},` +
	`"properties":{"addr":{"$ref":"#/$defs/Addr","title":"Address","examples":[{"city":"Paris"}]},` +
	`"tags":{"items":{"$ref":"#/$defs/Addr","description":"one"},"type":"array"}},"required":["addr"],"title":"Person","type":"object"}`

// Review 62f: a $ref node goes to Gemini with its "$"-members alone, in a
// tool's parameters, a json_schema response format and the answer function
// that carries one beside tools; a schema without $ref goes byte for byte.
func TestRefSiblingsAreDroppedForGemini(t *testing.T) {
	tool := `{"type":"function","function":{"name":"save","parameters":` + pydanticSchema + `}}`
	for _, c := range []struct{ name, body, path string }{
		{"tool parameters", `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[` + tool + `]}`, "tools"},
		{"response format", `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"p","schema":` + pydanticSchema + `}}}`, "generationConfig"},
	} {
		out, err := Translate(&provider.Request{Body: []byte(c.body)})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		s := string(out)
		for _, gone := range []string{`"title":"Address"`, `"examples"`, `"description":"one"`} {
			if strings.Contains(s, gone) {
				t.Errorf("%s: %s still beside a $ref: %s", c.name, gone, s)
			}
		}
		for _, kept := range []string{`"$ref":"#/$defs/Addr"`, `"$defs":{"Addr"`, `"title":"Person"`, `"title":"City"`} {
			if !strings.Contains(s, kept) {
				t.Errorf("%s: %s lost: %s", c.name, kept, s)
			}
		}
		if !json.Valid(out) {
			t.Errorf("%s: not JSON: %s", c.name, s)
		}
	}
	plain := json.RawMessage(`{"type":"object","properties":{"a":{"type":"string","title":"A"}}}`)
	if got := refOnly(plain); string(got) != string(plain) {
		t.Errorf("a schema without $ref changed: %s", got)
	}
}

// Review 62f: a tool's result holding "$ref" (an MCP tool describing a
// schema) goes to Gemini as text: Gemini 3 reads {"$ref": name} in a
// functionResponse as a media part's name and refuses the request.
func TestToolResultWithRefGoesAsText(t *testing.T) {
	body := `{"model":"m","messages":[{"role":"user","content":"describe"},` +
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"describe","arguments":"{}"}}]},` +
		`{"role":"tool","tool_call_id":"c1","content":"{\"schema\":{\"$ref\":\"#/$defs/X\"}}"}]}`
	out, err := Translate(&provider.Request{Body: []byte(body)})
	if err != nil {
		t.Fatal(err)
	}
	var req struct {
		Contents []struct {
			Parts []struct {
				FunctionResponse *struct {
					Response map[string]json.RawMessage `json:"response"`
				} `json:"functionResponse"`
			} `json:"parts"`
		} `json:"contents"`
	}
	if err := json.Unmarshal(out, &req); err != nil {
		t.Fatal(err)
	}
	for _, c := range req.Contents {
		for _, p := range c.Parts {
			if fr := p.FunctionResponse; fr != nil {
				var s string
				if json.Unmarshal(fr.Response["content"], &s) != nil || !strings.Contains(s, `"$ref"`) || fr.Response["schema"] != nil {
					t.Fatalf("the result went as %s, want its text under content", out)
				}
				return
			}
		}
	}
	t.Fatalf("no functionResponse in %s", out)
}
