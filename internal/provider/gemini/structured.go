package gemini

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
)

// AnswerFunction and ValueFunction are the reserved names of the function
// that carries a structured answer beside the client's functions on a
// model before Gemini 3 (TakesSchemaWithTools): AnswerFunction's arguments
// are the answer; ValueFunction wraps a schema whose top level is not an
// object (Gemini's function parameters describe an object), and its
// arguments' "value" is the answer. Answers and streams recognise them by
// name alone (they never see the request), so a client function may not
// take either name. They are the Anthropic adapter's answer tool names.
const (
	AnswerFunction = "detour_json_answer"
	ValueFunction  = "detour_json_value"
)

const (
	answerFuncDescription = "Call this function to give your final answer: its arguments are the answer, a JSON object that follows the schema."
	valueFuncDescription  = `Call this function to give your final answer: its "value" is the answer, a JSON value that follows the schema.`
)

// reservedName reports whether name is one of the answer function's names.
func reservedName(name string) bool { return name == AnswerFunction || name == ValueFunction }

// TakesSchemaWithTools reports whether model (the "models/" prefix or not)
// takes function declarations together with responseMimeType
// application/json: Gemini 3 models do (simstudioai/sim#4184); Gemini
// 1.5, 2.0 and 2.5 answer the pair with 400 INVALID_ARGUMENT "Function
// calling with a response mime type: 'application/json' is unsupported"
// (google-gemini/deprecated-generative-ai-swift#195,
// openai/openai-agents-python#656, googleapis/python-genai#867).
func TakesSchemaWithTools(model string) bool {
	return strings.HasPrefix(strings.TrimPrefix(strings.ToLower(model), "models/"), "gemini-3")
}

// structuredWithTools serves a json_schema or json_object response_format
// beside the client's function declarations on a model that refuses the
// pair, as the Anthropic adapter serves it on Claude (docs/doors.md,
// "Structured output on Claude targets"): responseMimeType and
// responseJsonSchema are not sent, and a reserved function whose
// parameters are the client's schema joins the declarations, with mode
// ANY (the model calls the client's functions, or answers); with
// tool_choice none it is the one function allowed. A request that
// requires a call of the client's functions (required, or a named one)
// gets no answer function: its answer is tool calls. Neither does a
// prefill (a request ending with an assistant turn): the model goes on
// with that text, which a forced call would start afresh.
func structuredWithTools(rf *chat.ResponseFormat, mode string, prefill bool, out *generateRequest, g *generationConfig) error {
	if rf == nil || (rf.Type != "json_object" && rf.Type != "json_schema") {
		return nil
	}
	g.ResponseMimeType, g.ResponseJSONSchema = "", nil
	if prefill || mode == "required" || mode == "function" {
		return nil
	}
	schema := json.RawMessage(`{"type":"object"}`)
	if rf.Type == "json_schema" && rf.JSONSchema != nil {
		if s := bytes.TrimSpace(rf.JSONSchema.Schema); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
			schema = refOnly(s)
		}
	}
	var top struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return provider.Refuse("response_format.json_schema.schema", "gemini: response_format json_schema: schema is not a JSON object: %v", err)
	}
	d := functionDecl{Name: AnswerFunction, Description: answerFuncDescription, ParametersJSONSchema: schema}
	if string(top.Type) != `"object"` {
		wrapped, err := chat.ValueSchema(schema)
		if err != nil {
			return err
		}
		d = functionDecl{Name: ValueFunction, Description: valueFuncDescription, ParametersJSONSchema: wrapped}
	}
	out.Tools[0].FunctionDeclarations = append(out.Tools[0].FunctionDeclarations, d)
	out.ToolConfig = &toolConfig{}
	out.ToolConfig.FunctionCallingConfig.Mode = "ANY"
	if mode == "none" {
		out.ToolConfig.FunctionCallingConfig.AllowedFunctionNames = []string{d.Name}
	}
	return nil
}

// answerText is the message content an answer function's arguments stand
// for (chat.AnswerText): the arguments, or for ValueFunction their
// "value"; none, or null, is an empty object.
func answerText(name string, args []byte) string {
	if t := bytes.TrimSpace(args); len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return "{}"
	}
	return chat.AnswerText(args, name == ValueFunction)
}

// answer returns the text of the candidate's first call of an answer
// function; later ones are dropped (two JSON texts would not parse).
func (c *candidate) answer() (string, bool) {
	if c.Content == nil {
		return "", false
	}
	for _, p := range c.Content.Parts {
		if p.FunctionCall != nil && reservedName(p.FunctionCall.Name) {
			return answerText(p.FunctionCall.Name, p.FunctionCall.Args), true
		}
	}
	return "", false
}
