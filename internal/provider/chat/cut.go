package chat

import (
	"encoding/json"
	"strings"
)

// CutArguments is the JSON object a tool call's arguments that are not
// one stand for: the members that were whole before the text broke off, in
// their order, and {} when none was (or the text is no object at all). It
// serves an answer cut at its length limit (finish_reason "length") inside
// a call, which the Messages door answers as Anthropic does, stop_reason
// max_tokens with the incomplete tool_use as its last block (docs/doors.md,
// "Answers"), and a call in a conversation's history whose arguments did
// not parse (HistoryArguments). A member cut in its value is left out
// rather than guessed at: a client that runs the call anyway gets a missing
// argument, not a truncated one.
func CutArguments(args string) json.RawMessage {
	s := strings.TrimSpace(args)
	dec := json.NewDecoder(strings.NewReader(s))
	out := []byte{'{'}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return append(out, '}')
	}
	for {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			break
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			break
		}
		// A value is whole when something follows it; at the very end of
		// the text only a number is in doubt (its last digits may be cut).
		rest := strings.TrimLeft(s[dec.InputOffset():], " \t\r\n")
		if rest == "" && isNumber(v) || rest != "" && rest[0] != ',' && rest[0] != '}' {
			break
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		k, _ := json.Marshal(key)
		out = append(append(append(out, k...), ':'), v...)
	}
	return append(out, '}')
}

// HistoryArguments is a tool call's arguments in a conversation's
// history, as a JSON object for a vendor that takes one (Claude's tool_use
// input, Gemini's functionCall args): the arguments when they are one, else
// what CutArguments makes of them. OpenAI takes arguments as an opaque
// string, so a model's malformed call, or one cut at a length limit, stays
// in a conversation a client sends back (the OpenAI Agents SDK, LangChain's
// invalid_tool_calls: openai/openai-agents-python#2061); refusing it would
// refuse every later turn at the other vendors, where the tool message
// after the call already tells the model it failed (docs/doors.md, "Chat
// Completions to Claude and Gemini targets").
func HistoryArguments(args string) json.RawMessage {
	if a, err := Arguments(args); err == nil {
		return a
	}
	return CutArguments(args)
}

func isNumber(v json.RawMessage) bool {
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}
