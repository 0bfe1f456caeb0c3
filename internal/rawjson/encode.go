package rawjson

import "encoding/json"

// Marshal is json.Marshal without its HTML escaping: '<', '>' and '&' are
// written as they are, where json.Marshal writes each as a six-byte \u003c.
// Every body Detour builds for an upstream is built with it: a prompt of
// markup or code (a pasted page, a diff, generics) would otherwise grow up
// to six times in translation, past what the in-flight allowance reserves
// for it (docs/config.md, max_inflight_body_bytes; reviews 32i and 36a).
// The receiver decodes the same strings either way. It allocates what
// json.Marshal does: the encoder's buffer, then one copy of its size.
func Marshal(v any) ([]byte, error) {
	var w exact
	e := json.NewEncoder(&w)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		return nil, err
	}
	return w.b[:len(w.b)-1], nil // Encode's newline
}

// exact keeps what is written to it, one allocation of its size for the
// one Write an Encoder makes (a bytes.Buffer's growth costs more).
type exact struct{ b []byte }

func (w *exact) Write(p []byte) (int, error) {
	w.b = append(w.b, p...)
	return len(p), nil
}
