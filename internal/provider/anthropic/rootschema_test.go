package anthropic

import (
	"encoding/json"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestRootCombinatorFolded: a function whose parameters hold anyOf, oneOf
// or allOf at the top level, which OpenAI and Gemini take and Anthropic
// refuses with 400 "tools.0.custom.input_schema: input_schema does not
// support oneOf, allOf, or anyOf at the top level" (the body quoted in
// anthropics/claude-code#5319; an MCP server's tool passed on as a
// function: langchain-ai/langchain#39271, diegosouzapw/OmniRoute#13552),
// reaches Claude as one object schema: the branches' properties joined to
// the root's, an allOf's requirements kept, and an anyOf's or oneOf's
// alternatives said in the tool's description (docs/doors.md, "Chat
// Completions to Claude and Gemini targets"). Before round 48 every request
// carrying such a tool was a 400 that stopped the route.
func TestRootCombinatorFolded(t *testing.T) {
	for _, tc := range []struct{ name, params, desc, schema string }{
		{"anyOf of requirements (gitnexus's api_impact)",
			`{"type":"object","properties":{"route":{"type":"string"},"file":{"type":"string"},"depth":{"type":"integer"}},"anyOf":[{"required":["route"]},{"required":["file"]}]}`,
			"Impact of a change.\n\nGive arguments that match at least one of: route given; file given.",
			`{"type":"object","properties":{"route":{"type":"string"},"file":{"type":"string"},"depth":{"type":"integer"}}}`},
		{"oneOf of shapes, the root's required kept",
			`{"type":"object","required":["mode"],"properties":{"mode":{"type":"string"}},"oneOf":[{"properties":{"id":{"type":"string"}},"required":["id"]},{"properties":{"name":{"type":"string"},"mode":{"type":"integer"}}}]}`,
			"Impact of a change.\n\nGive arguments that match exactly one of: id given; only name, mode.",
			`{"type":"object","properties":{"mode":{"type":"string"},"id":{"type":"string"},"name":{"type":"string"}},"required":["mode"]}`},
		{"allOf: every branch's requirements hold",
			`{"type":"object","allOf":[{"properties":{"a":{"type":"string"}},"required":["a"]},{"properties":{"b":{"type":"number"}},"required":["b"]}]}`,
			"Impact of a change.",
			`{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"number"}},"required":["a","b"]}`},
	} {
		in := `{"model":"m","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"api_impact","description":"Impact of a change.","parameters":` + tc.params + `}}]}`
		out, err := Translate(adaptertest.ClientRequest(t, []byte(in)), "claude")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var got struct {
			Tools []struct {
				Description string          `json:"description"`
				InputSchema json.RawMessage `json:"input_schema"`
			} `json:"tools"`
		}
		if err := json.Unmarshal(out, &got); err != nil || len(got.Tools) != 1 {
			t.Fatalf("%s: %s", tc.name, out)
		}
		if got.Tools[0].Description != tc.desc {
			t.Errorf("%s: description %q, want %q", tc.name, got.Tools[0].Description, tc.desc)
		}
		adaptertest.SameJSON(t, got.Tools[0].InputSchema, []byte(tc.schema))
	}
}

// TestStructuredRootCombinatorIsAValue: a response_format schema with a
// top-level anyOf beside "type":"object" is wrapped as the answer tool's
// "value", where Anthropic takes the combinator, and nothing of it is lost.
func TestStructuredRootCombinatorIsAValue(t *testing.T) {
	schema := `{"type":"object","properties":{"a":{"type":"string"},"b":{"type":"string"}},"anyOf":[{"required":["a"]},{"required":["b"]}]}`
	in := `{"model":"m","messages":[{"role":"user","content":"hi"}],"response_format":{"type":"json_schema","json_schema":{"name":"x","schema":` + schema + `}}}`
	out, err := Translate(adaptertest.ClientRequest(t, []byte(in)), "claude")
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		} `json:"tools"`
	}
	if err := json.Unmarshal(out, &got); err != nil || len(got.Tools) != 1 || got.Tools[0].Name != ValueTool {
		t.Fatalf("%s", out)
	}
	adaptertest.SameJSON(t, got.Tools[0].InputSchema, []byte(`{"type":"object","properties":{"value":`+schema+`},"required":["value"]}`))
}
