package messages

import (
	"encoding/json"
	"strings"
)

// cutArguments is the input of a tool_use block whose arguments were cut
// at the answer's length limit (finish_reason "length") before they made a
// whole JSON object (docs/doors.md, "Answers"). Anthropic's answer to such
// a turn is stop_reason max_tokens with the incomplete tool_use as its
// last block, which clients look for to retry with a higher max_tokens;
// its input here is the members that were whole before the cut, in their
// order, and {} when none was. A member cut in its value is left out rather
// than guessed at: a client that runs the call anyway gets a missing
// argument, not a truncated one.
func cutArguments(args string) json.RawMessage {
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

func isNumber(v json.RawMessage) bool {
	return len(v) > 0 && (v[0] == '-' || v[0] >= '0' && v[0] <= '9')
}
