package rawjson

import (
	"bytes"
	"encoding/json"
)

// Marshal is json.Marshal without its HTML escaping: '<', '>' and '&' are
// written as they are, where json.Marshal writes each as a six-byte \u003c.
// Every body Detour builds for an upstream is built with it: a prompt of
// markup or code (a pasted page, a diff, generics) would otherwise grow up
// to six times in translation, past what the in-flight allowance reserves
// for it (docs/config.md, max_inflight_body_bytes; reviews 32i and 36a).
// The receiver decodes the same strings either way.
func Marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	e := json.NewEncoder(&buf)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	b := buf.Bytes()
	return b[:len(b)-1], nil // Encode's newline
}
