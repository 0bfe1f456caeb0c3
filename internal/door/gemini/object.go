package gemini

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// Google's JSON reader (proto3's JSON mapping) takes every field by its
// lowerCamelCase name and by its proto name in snake_case: the SDKs send
// "systemInstruction", Google's own curl examples "system_instruction".
// The door reads both, at the levels that are Google's own structures
// (never inside a schema, a function's arguments or its response, which
// are the client's data): obj returns an object's members under their
// camelCase names.

// object is one JSON object's members by camelCase name.
type object map[string]json.RawMessage

// obj decodes raw, which must be a JSON object (null reads as none: nil),
// naming it where for an error. A member given under both of its names is
// refused: Google's reader would keep one of them, and which one is not
// said.
func obj(raw json.RawMessage, where string) (object, error) {
	if !set(raw) {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		return nil, invalid(where, "must be an object")
	}
	snake := false
	for k := range m {
		if strings.IndexByte(k, '_') > 0 {
			snake = true
			break
		}
	}
	if !snake { // every name camelCase already, as the SDKs send: the map as decoded (round 38)
		return object(m), nil
	}
	out := make(object, len(m))
	for k, v := range m {
		c := camel(k)
		if _, dup := out[c]; dup {
			return nil, invalid(where, fmt.Sprintf("gives %q twice, in camelCase and in snake_case: send one", c))
		}
		out[c] = v
	}
	return out, nil
}

// camel is a snake_case name in lowerCamelCase; any other name as it is.
func camel(k string) string {
	if strings.IndexByte(k, '_') <= 0 {
		return k
	}
	var b strings.Builder
	up := false
	for i := 0; i < len(k); i++ {
		c := k[i]
		switch {
		case c == '_':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteByte(c - 'a' + 'A')
			up = false
		default:
			b.WriteByte(c)
			up = false
		}
	}
	return b.String()
}

// set reports whether raw holds a value other than null.
func set(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) > 0 && !bytes.Equal(t, []byte("null"))
}

// str reads member k of o as a string ("" when absent or null).
func (o object) str(k, where string) (string, error) {
	v, ok := o[k]
	if !ok || !set(v) {
		return "", nil
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", invalid(where+"."+k, "must be a string")
	}
	return s, nil
}

// list reads member k of o as a JSON array (nil when absent or null).
func (o object) list(k, where string) ([]json.RawMessage, error) {
	v, ok := o[k]
	if !ok || !set(v) {
		return nil, nil
	}
	var l []json.RawMessage
	if json.Unmarshal(v, &l) != nil {
		return nil, invalid(where+"."+k, "must be a list")
	}
	return l, nil
}

// num reads member k of o as a number (nil when absent or null).
func (o object) num(k, where string) (*float64, error) {
	v, ok := o[k]
	if !ok || !set(v) {
		return nil, nil
	}
	var f float64
	if json.Unmarshal(v, &f) != nil {
		return nil, invalid(where+"."+k, "must be a number")
	}
	return &f, nil
}

// integer reads member k of o as a whole number (nil when absent or null).
// Google's JSON writes an int64 as a string: both are read.
func (o object) integer(k, where string) (*int64, error) {
	v, ok := o[k]
	if !ok || !set(v) {
		return nil, nil
	}
	v = bytes.Trim(bytes.TrimSpace(v), `"`)
	var n int64
	if json.Unmarshal(v, &n) != nil {
		var f float64
		if json.Unmarshal(v, &f) != nil || f != float64(int64(f)) {
			return nil, invalid(where+"."+k, "must be a whole number")
		}
		n = int64(f)
	}
	return &n, nil
}

// boolean reads member k of o (false when absent or null).
func (o object) boolean(k, where string) (bool, error) {
	v, ok := o[k]
	if !ok || !set(v) {
		return false, nil
	}
	var b bool
	if json.Unmarshal(v, &b) != nil {
		return false, invalid(where+"."+k, "must be a boolean")
	}
	return b, nil
}

// Error is a request the door cannot translate: Unsupported when it is a
// Gemini request whose feature only a Gemini target serves (native
// passthrough, which a route to one can still give it), else a malformed
// request (a 400 INVALID_ARGUMENT at once).
type Error struct {
	Field       string
	Msg         string
	Unsupported bool
}

func (e *Error) Error() string {
	if e.Field == "" {
		return e.Msg
	}
	return e.Field + ": " + e.Msg
}

func invalid(field, msg string) *Error { return &Error{Field: field, Msg: msg} }

func unsupported(field, what string) *Error {
	return &Error{Field: field, Unsupported: true,
		Msg: what + " is served by Gemini targets alone (passed through as sent); no other target of this route can take it"}
}
