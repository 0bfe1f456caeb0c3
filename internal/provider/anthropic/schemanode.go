package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// A fitted schema as schemafit.go builds it, and its writing: the whole
// schema is written once, when fitted.

// node is a fitted schema (or an object of them: properties, $defs),
// written once when the whole schema is fitted (appendTo): written at each
// level, a deep schema's bytes were copied once a level (review 66k: 60
// levels around 1 MiB allocated 125 times the body, a translation
// reserving 10).
type node []member

// member is one member of a schema being written: a value as it came, a
// fitted schema, or a list of them.
type member struct {
	key  string
	val  []byte
	sub  node
	list []node
}

// get is n's member key, nil when none.
func (n node) get(key string) *member {
	for i := range n {
		if n[i].key == key {
			return &n[i]
		}
	}
	return nil
}

// appendTo writes n as a JSON object, its members in order.
func (n node) appendTo(b []byte) []byte {
	b = append(b, '{')
	for i, m := range n {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, m.key)
		b = append(b, ':')
		switch {
		case m.val != nil:
			b = append(b, m.val...)
		case m.list != nil:
			b = append(b, '[')
			for j, e := range m.list {
				if j > 0 {
					b = append(b, ',')
				}
				b = e.appendTo(b)
			}
			b = append(b, ']')
		default:
			b = m.sub.appendTo(b)
		}
	}
	return append(b, '}')
}

// described is the description with the keywords taken out said after it,
// as the SDKs write them ("{minimum: 1, maximum: 10}"); nil when neither.
func described(desc []byte, left []member) []byte {
	if len(left) == 0 {
		return desc
	}
	var s strings.Builder
	if d, ok := rawjson.String(desc); ok && d != "" {
		s.WriteString(d)
		s.WriteString("\n\n")
	}
	s.WriteByte('{')
	for i, m := range left {
		if i > 0 {
			s.WriteString(", ")
		}
		var c bytes.Buffer
		if json.Compact(&c, m.val) != nil {
			c.Write(m.val)
		}
		s.WriteString(m.key + ": " + c.String())
	}
	s.WriteByte('}')
	b, _ := rawjson.Marshal(s.String())
	return b
}
