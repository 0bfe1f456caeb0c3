package messages

import (
	"bytes"
	"encoding/json"
)

// DropUnsigned removes, from the assistant turns of a Messages request
// body, every thinking block whose signature is empty or missing, and a
// turn left with no content; body is returned as it is when it has no
// empty signature.
//
// Only this door writes such blocks: the reasoning of another vendor's
// model, shown as thinking (Answer, Encoder), which the client's SDK hands
// back with the turn. Anthropic refuses a thinking block it did not sign
// ("Invalid `signature` in `thinking` block", a 400), so passed through as
// the client wrote it, one turn answered elsewhere would fail every later
// turn at Claude for as long as Claude answers first (review 32d). Where
// the request turns thinking on and the last assistant turn lost the
// thinking it opened with, the request's thinking is turned off too:
// Anthropic wants that turn to open with a signed thinking block while a
// tool loop runs, and says to disable thinking otherwise (review 32i).
// Read before a request goes to a target that serves the Messages API as
// is (docs/doors.md, "Answers"). What is kept is written back as it was,
// not re-escaped.
func DropUnsigned(body []byte) []byte {
	if !bytes.Contains(body, []byte(`"signature":""`)) && !bytes.Contains(body, []byte(`"signature": ""`)) {
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
	changed, brokeLast := false, false
	kept := msgs[:0]
	for _, m := range msgs {
		var blocks []json.RawMessage
		if json.Unmarshal(m["content"], &blocks) != nil || len(blocks) == 0 {
			kept = append(kept, m)
			continue
		}
		out := blocks[:0]
		for _, b := range blocks {
			if unsignedThinking(b) {
				changed = true
				continue
			}
			out = append(out, b)
		}
		if len(out) == 0 {
			continue // a turn of foreign reasoning only: nothing of it is Claude's
		}
		if fromAssistant(m) {
			brokeLast = len(out) != len(blocks) && !thinkingBlock(out[0])
		}
		if len(out) != len(blocks) {
			m["content"] = encodeRaw(out)
		}
		kept = append(kept, m)
	}
	if !changed {
		return body
	}
	if top["messages"] = encodeRaw(kept); top["messages"] == nil {
		return body
	}
	if brokeLast && thinkingOn(top["thinking"]) {
		delete(top, "thinking")
	}
	if b := encodeRaw(top); b != nil {
		return b
	}
	return body
}

func unsignedThinking(b json.RawMessage) bool {
	var head struct {
		Type      string  `json:"type"`
		Signature *string `json:"signature"`
	}
	return json.Unmarshal(b, &head) == nil && head.Type == "thinking" && (head.Signature == nil || *head.Signature == "")
}

func thinkingBlock(b json.RawMessage) bool {
	var head struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(b, &head) == nil && (head.Type == "thinking" || head.Type == "redacted_thinking")
}

func fromAssistant(m map[string]json.RawMessage) bool {
	var role string
	return json.Unmarshal(m["role"], &role) == nil && role == "assistant"
}

func thinkingOn(t json.RawMessage) bool {
	var th struct {
		Type string `json:"type"`
	}
	return json.Unmarshal(t, &th) == nil && (th.Type == "enabled" || th.Type == "adaptive")
}

// encodeRaw is v as JSON, with <, > and & as written (json.Marshal would
// escape each in six bytes: a body of markup grown six times, review 32i).
func encodeRaw(v any) json.RawMessage {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if e.Encode(v) != nil {
		return nil
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}
