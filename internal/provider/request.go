package provider

import (
	"encoding/json"
	"errors"

	"github.com/detour-llm/detour/internal/rawjson"
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
	start, end, err := rawjson.MemberSpan(r.Body, "model")
	if err != nil {
		return nil, errNotObject
	}
	if start < 0 { // no "model": add it first
		return rawjson.WithFirst(r.Body, "model", m), nil
	}
	return rawjson.Replace(r.Body, start, end, m), nil
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
