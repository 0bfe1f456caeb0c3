package messages

import (
	"bytes"
	"encoding/json"
)

// DropUnsigned removes, from the assistant turns of a Messages request
// body, every thinking block whose signature is empty or missing, and a
// turn left with no content; body is returned as it is when it has none.
//
// Only this door writes such blocks: the reasoning of another vendor's
// model, shown as thinking (Answer, Encoder), which the client's SDK hands
// back with the turn. Anthropic refuses a thinking block it did not sign
// ("Invalid `signature` in `thinking` block", a 400), so passed through as
// the client wrote it, one turn answered elsewhere would fail every later
// turn at Claude for as long as Claude answers first (review 32d). Read
// before a request goes to a target that serves the Messages API as is
// (docs/doors.md, "Answers").
func DropUnsigned(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"thinking"`)) {
		return body
	}
	var top map[string]json.RawMessage
	if json.Unmarshal(body, &top) != nil {
		return body
	}
	var msgs []map[string]json.RawMessage
	if json.Unmarshal(top["messages"], &msgs) != nil {
		return body
	}
	changed := false
	kept := msgs[:0]
	for _, m := range msgs {
		var blocks []json.RawMessage
		if json.Unmarshal(m["content"], &blocks) != nil || len(blocks) == 0 {
			kept = append(kept, m)
			continue
		}
		out := blocks[:0]
		for _, b := range blocks {
			var head struct {
				Type      string  `json:"type"`
				Signature *string `json:"signature"`
			}
			if json.Unmarshal(b, &head) == nil && head.Type == "thinking" && (head.Signature == nil || *head.Signature == "") {
				changed = true
				continue
			}
			out = append(out, b)
		}
		if len(out) == 0 {
			continue // a turn of foreign reasoning only: nothing of it is Claude's
		}
		if len(out) != len(blocks) {
			m["content"], _ = json.Marshal(out)
		}
		kept = append(kept, m)
	}
	if !changed {
		return body
	}
	var err error
	if top["messages"], err = json.Marshal(kept); err != nil {
		return body
	}
	b, err := json.Marshal(top)
	if err != nil {
		return body
	}
	return b
}
