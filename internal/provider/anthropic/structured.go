package anthropic

import (
	"bytes"
	"encoding/json"

	"github.com/detour-llm/detour/internal/provider"
	"github.com/detour-llm/detour/internal/provider/chat"
	"github.com/detour-llm/detour/internal/sse"
)

// AnswerTool and ValueTool are the reserved names of the answer tool that
// carries a structured answer (response_format json_schema or json_object):
// AnswerTool's input is the answer; ValueTool wraps a schema whose top level
// is not an object, and its input's "value" is the answer. Answers and
// streams recognise them by name alone (they never see the request), so a
// client tool may not take either name.
const (
	AnswerTool = "detour_json_answer"
	ValueTool  = "detour_json_value"
)

const (
	answerDescription = "Call this tool to give your final answer: its input is the answer, a JSON object that follows the schema."
	valueDescription  = `Call this tool to give your final answer: its "value" is the answer, a JSON value that follows the schema.`
)

// objectSchema is the answer tool's input_schema for json_object.
var objectSchema = json.RawMessage(`{"type":"object"}`)

// reserved reports whether name is one of the answer tool's names.
func reserved(name string) bool { return name == AnswerTool || name == ValueTool }

// structured adds the answer tool for a json_schema or json_object
// response_format (docs/doors.md, "Structured output on Claude targets"). mode is
// the client's tool_choice mode ("" when it sent none). A request that
// requires a call of its own tools (required, or a named function) is left
// alone: its answer is tool calls. Without tools of the client's, or with
// tool_choice none, the answer tool is forced; beside the client's tools
// (auto), some tool call is required, the client's or the answer tool's.
// A request that ends with an assistant turn is a prefill (a client's, or a
// cut stream continued, docs/behaviour.md#streams): Claude goes on with
// that text, which a forced answer tool would start afresh, so it gets none.
func structured(rf *chat.ResponseFormat, mode string, out *messagesRequest) error {
	if rf == nil || mode == "required" || mode == "function" {
		return nil
	}
	if n := len(out.Messages); n > 0 && out.Messages[n-1].Role == "assistant" {
		return nil
	}
	schema := objectSchema
	switch rf.Type {
	case "json_object":
	case "json_schema":
		if rf.JSONSchema != nil {
			if s := bytes.TrimSpace(rf.JSONSchema.Schema); len(s) > 0 && !bytes.Equal(s, []byte("null")) {
				schema = s
			}
		}
	default: // "text", or a type Anthropic has no way to ask for
		return nil
	}
	var top struct {
		Type json.RawMessage `json:"type"`
	}
	if err := json.Unmarshal(schema, &top); err != nil {
		return provider.Refuse("response_format.json_schema.schema", "anthropic: response_format json_schema: schema is not a JSON object: %v", err)
	}
	t := tool{Name: AnswerTool, Description: answerDescription, InputSchema: schema}
	// A top-level combinator, which Anthropic refuses in an input schema
	// (rootschema.go), goes inside the value, where it is taken.
	if string(top.Type) != `"object"` || rootCombinator(schema) {
		wrapped, err := chat.ValueSchema(schema)
		if err != nil {
			return err
		}
		t = tool{Name: ValueTool, Description: valueDescription, InputSchema: wrapped}
	}
	parallelOff := out.ToolChoice != nil && out.ToolChoice.DisableParallelToolUse
	if len(out.Tools) == 0 || mode == "none" {
		// One answer: a second call of the answer tool would make the
		// content two JSON texts.
		out.ToolChoice = &toolChoice{Type: "tool", Name: t.Name, DisableParallelToolUse: true}
	} else {
		out.ToolChoice = &toolChoice{Type: "any", DisableParallelToolUse: parallelOff}
	}
	out.Tools = append(out.Tools, t)
	return nil
}

// answerText is the message content an answer tool's input stands for
// (chat.AnswerText): the input, or for ValueTool its "value".
func answerText(name string, input []byte) string { return chat.AnswerText(input, name == ValueTool) }

// answerState is a stream's answer tool block: AnswerTool's input is sent
// as content fragment by fragment; ValueTool's is gathered in buf and its
// value sent whole when the block ends.
type answerState struct {
	on    bool
	index int
	name  string
	buf   []byte
}

// maxValue bounds a ValueTool input gathered from a stream (it is held,
// not relayed, until its block ends): past it the stream ends with
// sse.ErrEventTooLarge, a server_error that fails over before the commit
// point, never a value with a piece missing. Every such stream may hold
// this much, so it is well below a whole answer's 64 MiB.
var maxValue = 8 << 20 // tests lower it

func (s *stream) answerDelta(out *provider.Event, partial string) error {
	if s.answer.name == ValueTool {
		if len(s.answer.buf)+len(partial) > maxValue {
			return sse.ErrEventTooLarge
		}
		s.answer.buf = append(s.answer.buf, partial...)
		// The value is being written (review 37b); an empty piece writes
		// nothing, and an upstream sending them forever must still time
		// out (review 37d).
		out.Progress = partial != ""
		return nil
	}
	if partial != "" {
		s.text(out, partial)
	}
	return nil
}

func (s *stream) answerEnd(out *provider.Event) {
	if s.answer.name == ValueTool {
		if t := answerText(ValueTool, s.answer.buf); t != "" {
			s.text(out, t)
		}
	}
	s.answer = answerState{}
}
