package provider

import (
	"bytes"
	"encoding/json"
	"errors"
)

// WithModel returns the client's body with its top-level "model" member set
// to model and every other byte as the client sent it (member order,
// spacing, numbers and escapes included). Body must be a JSON object, as
// the server has already checked; a body without "model" gets one added.
func (r *Request) WithModel(model string) ([]byte, error) {
	m, err := quote(model)
	if err != nil {
		return nil, err
	}
	start, end, err := memberValue(r.Body, "model")
	if err != nil {
		return nil, err
	}
	if start < 0 { // no "model": add it first
		i := skipSpace(r.Body, 0) + 1
		out := make([]byte, 0, len(r.Body)+len(m)+10)
		out = append(out, r.Body[:i]...)
		out = append(out, `"model":`...)
		out = append(out, m...)
		if j := skipSpace(r.Body, i); j < len(r.Body) && r.Body[j] != '}' {
			out = append(out, ',')
		}
		return append(out, r.Body[i:]...), nil
	}
	out := make([]byte, 0, len(r.Body)-(end-start)+len(m))
	out = append(out, r.Body[:start]...)
	out = append(out, m...)
	return append(out, r.Body[end:]...), nil
}

// quote is json.Marshal(model) without its allocations for the common
// name: printable ASCII that encoding/json writes as is.
func quote(model string) ([]byte, error) {
	for i := 0; i < len(model); i++ {
		if c := model[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return json.Marshal(model)
		}
	}
	return []byte(`"` + model + `"`), nil
}

var errNotObject = errors.New("request body is not a JSON object")

// memberValue finds the byte span of the value of the top-level member key
// in the JSON object b; start is -1 when there is none.
func memberValue(b []byte, key string) (start, end int, err error) {
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return 0, 0, errNotObject
	}
	i++
	start = -1
	for {
		i = skipSpace(b, i)
		if i >= len(b) {
			return 0, 0, errNotObject
		}
		if b[i] == '}' {
			return start, end, nil
		}
		if b[i] == ',' {
			i++
			continue
		}
		ks, ke := i, skipValue(b, i)
		if ke < 0 {
			return 0, 0, errNotObject
		}
		i = skipSpace(b, ke)
		if i >= len(b) || b[i] != ':' {
			return 0, 0, errNotObject
		}
		vs := skipSpace(b, i+1)
		ve := skipValue(b, vs)
		if ve < 0 {
			return 0, 0, errNotObject
		}
		if keyIs(b[ks:ke], key) {
			start, end = vs, ve // the last one wins, as in encoding/json
		}
		i = ve
	}
}

// keyIs reports whether the JSON string k (quotes included) is key, escapes
// decoded as encoding/json would.
func keyIs(k []byte, key string) bool {
	if len(k) == len(key)+2 && string(k[1:len(k)-1]) == key {
		return true
	}
	return bytes.IndexByte(k, '\\') >= 0 && escapedKeyIs(k, key)
}

// escapedKeyIs is keyIs's slow path, apart so that the common case does not
// allocate the decoded string.
func escapedKeyIs(k []byte, key string) bool {
	var s string
	return json.Unmarshal(k, &s) == nil && s == key
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the index just past the JSON value starting at b[i],
// or -1 when it does not end.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		for j := i + 1; j < len(b); j++ {
			switch b[j] {
			case '\\':
				j++
			case '"':
				return j + 1
			}
		}
		return -1
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				k := skipValue(b, j)
				if k < 0 {
					return -1
				}
				j = k - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\t' && b[j] != '\n' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}
