package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// foldedTool translates one function tool with params to Claude and
// returns its input_schema's properties.
func foldedTool(t *testing.T, params string) map[string]json.RawMessage {
	t.Helper()
	in := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":` + params + `}}]}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(in)), "claude")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools []struct {
			InputSchema struct {
				Properties map[string]json.RawMessage `json:"properties"`
			} `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Tools) != 1 {
		t.Fatalf("%s", out)
	}
	return got.Tools[0].InputSchema.Properties
}

// TestR48FoldRootOwnPropertyWinsWhateverTheOrder: rootschema.go and
// docs/doors.md say the root's own properties win over a branch's. They do
// only when "properties" comes before the combinator: a schema whose keys
// are sorted (Go's encoding/json of a map, Python's json.dumps(sort_keys=
// True): "allOf" and "anyOf" sort before "properties") gets the branch's
// definition of the property instead of the root's.
func TestR48FoldRootOwnPropertyWinsWhateverTheOrder(t *testing.T) {
	props := foldedTool(t, `{"anyOf":[{"properties":{"mode":{"type":"integer"}},"required":["mode"]},{"required":["id"]}],"properties":{"id":{"type":"string"},"mode":{"type":"string","description":"root"}},"type":"object"}`)
	adaptertest.SameJSON(t, props["mode"], []byte(`{"type":"string","description":"root"}`))
}

// TestR48FoldKeepsEveryAlternativeOfASharedProperty: a discriminated union
// (zod's discriminatedUnion, pydantic's Literal tags as MCP servers write
// them) names the same property in every branch with a different const.
// The fold keeps the first branch's definition alone, so the schema Claude
// is given allows the first alternative only ("kind" must be "circle"),
// while the description tells it either may be given: a request for a
// square cannot be answered by a call the schema allows.
func TestR48FoldKeepsEveryAlternativeOfASharedProperty(t *testing.T) {
	props := foldedTool(t, `{"type":"object","anyOf":[{"properties":{"kind":{"const":"circle"},"radius":{"type":"number"}},"required":["kind","radius"]},{"properties":{"kind":{"const":"square"},"side":{"type":"number"}},"required":["kind","side"]}]}`)
	var kind map[string]any
	if err := json.Unmarshal(props["kind"], &kind); err != nil {
		t.Fatal(err)
	}
	if c, ok := kind["const"]; ok {
		t.Errorf(`folded "kind" is %s: the schema forbids the second alternative (const %v)`, props["kind"], c)
	}
}
