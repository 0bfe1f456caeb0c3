package messages

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
)

// WithModel returns the client's Messages body for an Anthropic target:
// every byte as the client sent it (member order, spacing, numbers,
// escapes, fields the door does not know) except the value of each
// top-level "model" member, which becomes model. A body without "model"
// gets it added first. body must be a JSON object.
//
// The member is found with encoding/json's tokenizer (the body is checked
// as JSON on the way), and its name is matched exactly, as Anthropic reads
// it: a "Model" member is left alone.
func WithModel(body []byte, model string) ([]byte, error) {
	m, err := json.Marshal(model)
	if err != nil {
		return nil, err
	}
	spans, open, err := modelSpans(body)
	if err != nil {
		return nil, err
	}
	if len(spans) == 0 {
		out := make([]byte, 0, len(body)+len(m)+10)
		out = append(out, body[:open+1]...)
		out = append(out, `"model":`...)
		out = append(out, m...)
		if rest := bytes.TrimLeft(body[open+1:], " \t\r\n"); len(rest) > 0 && rest[0] != '}' {
			out = append(out, ',')
		}
		return append(out, body[open+1:]...), nil
	}
	out := make([]byte, 0, len(body)+len(m))
	prev := 0
	for _, s := range spans {
		out = append(out, body[prev:s[0]]...)
		out = append(out, m...)
		prev = s[1]
	}
	return append(out, body[prev:]...), nil
}

var errNotObject = errors.New("messages: request body is not a JSON object")

// modelSpans returns the byte spans of the values of the top-level "model"
// members of the JSON object body, and the offset of its opening brace.
func modelSpans(body []byte) (spans [][2]int, open int, err error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	tok, err := dec.Token()
	if err != nil || tok != json.Delim('{') {
		return nil, 0, errNotObject
	}
	open = int(dec.InputOffset()) - 1
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return nil, 0, errNotObject
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, 0, errNotObject
		}
		if key == "model" {
			end := int(dec.InputOffset())
			spans = append(spans, [2]int{end - len(v), end})
		}
	}
	if tok, err := dec.Token(); err != nil || tok != json.Delim('}') {
		return nil, 0, errNotObject
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, 0, errNotObject
	}
	return spans, open, nil
}
