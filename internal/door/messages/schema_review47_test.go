package messages

import (
	"strings"
	"testing"

	"github.com/detour-llm/detour/internal/provider/adaptertest"
)

// TestToolSchemaOpenAITakesC47c checks that an input_schema Anthropic takes
// reaches the canonical body as parameters OpenAI takes too. MCP servers
// declare argument-less tools as {"type":"object"}, which worked with Claude
// and failed at OpenAI with `Invalid schema for function '…': In
// context=(), object schema missing properties.` (dust-tt/dust#12905; the
// error as quoted in langchain-ai/langchain-mcp-adapters#137); {} is the
// other spelling of a tool without arguments. OpenAI's function-calling
// guide writes an argument-less tool's parameters with "type": "object"
// and "properties": {}. Schemas that already say both are kept byte for
// byte, and a schema of another type is not touched.
func TestToolSchemaOpenAITakes(t *testing.T) {
	for _, tc := range []struct{ name, schema, want string }{
		{"object without properties", `{"type":"object"}`, `{"type":"object","properties":{}}`},
		{"empty", `{}`, `{"type":"object","properties":{}}`},
		{"empty with space", `{ }`, `{"type":"object","properties":{}}`},
		{"no type", `{"properties":{"q":{"type":"string"}},"required":["q"]}`,
			`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`},
		{"object with other members", `{"type":"object","additionalProperties":false}`,
			`{"type":"object","additionalProperties":false,"properties":{}}`},
		{"complete", `{"type":"object","properties":{"city":{"type":"string"}}}`,
			`{"type":"object","properties":{"city":{"type":"string"}}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Translate([]byte(`{"model":"m","max_tokens":5,"tools":[{"name":"f","input_schema":` + tc.schema +
				`}],"messages":[{"role":"user","content":"x"}]}`))
			if err != nil {
				t.Fatal(err)
			}
			adaptertest.SameJSON(t, got.Body, []byte(`{"model":"m","max_completion_tokens":5,
				"tools":[{"type":"function","function":{"name":"f","parameters":`+tc.want+`}}],
				"messages":[{"role":"user","content":"x"}]}`))
		})
	}
}

// TestToolAdditionSchemaOpenAITakesC47c: a tool a system message's
// tool_addition defines goes the same way as a tools entry.
func TestToolAdditionSchemaOpenAITakes(t *testing.T) {
	got, err := Translate([]byte(`{"model":"m","max_tokens":5,"messages":[{"role":"user","content":"x"},
		{"role":"system","content":[{"type":"tool_addition","tool":{"type":"tool_definition","definition":{"name":"g","input_schema":{"type":"object"}}}}]},
		{"role":"user","content":"y"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(got.Body), `"parameters":{"type":"object","properties":{}}`) {
		t.Errorf("canonical body: %s", got.Body)
	}
}
