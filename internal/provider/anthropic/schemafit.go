package anthropic

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/detour-llm/detour/internal/rawjson"
)

// A client's JSON schema fitted to the subset Anthropic's JSON outputs
// take (nativeschema.go; docs/doors.md, "Structured output on Claude
// targets").

// Explicit limits of a request's strict schemas (structured outputs,
// "Schema complexity limits"): past either, Anthropic answers 400.
const (
	maxOptionalParams = 24
	maxUnionParams    = 16
	maxSchemaDepth    = 64
)

// supportedFormats are the string formats JSON outputs take (structured
// outputs, "JSON Schema limitations"; the SDKs' SUPPORTED_STRING_FORMATS).
var supportedFormats = map[string]bool{"date-time": true, "time": true, "date": true, "duration": true,
	"email": true, "hostname": true, "uri": true, "ipv4": true, "ipv6": true, "uuid": true}

// fitter fits one schema; refs records, by the definition being fitted
// ("" for the root's body), the definitions it refers to.
type fitter struct {
	defs     map[string]bool // "$defs/Name" and "definitions/Name" defined at the root
	refs     map[string][]string
	cur      string
	optional int
	unions   int
}

// fitSchema returns the client's schema as Anthropic's JSON outputs take
// it, fitted the way Anthropic's SDKs fit one (anthropic-sdk-python's
// transform_schema, anthropic-sdk-typescript's transformJSONSchema): every
// object gets "additionalProperties": false; a keyword outside the
// supported subset (minimum, maximum, minLength, maxLength, pattern,
// maxItems, minItems above 1, a string format not listed, …) is taken out
// and said in the description ("{minimum: 1, maximum: 10}"); oneOf becomes
// anyOf; title, description, enum, const, required, $ref and $defs (and
// draft-07's definitions, which the page lists) stay. $schema, $id and
// $comment are dropped. ok is false, and the schema goes to the answer
// tool instead, where fitting would change what the answer may be or
// Anthropic documents a 400: a dictionary (an object with
// additionalProperties true or a schema, patternProperties, or no
// properties and additionalProperties not false), a schema that allows
// anything (no type, enum, const, $ref or combinator), a tuple (items as a
// list, prefixItems), an enum or const of objects or arrays, allOf with
// $ref, a $ref other than to a definition at the root, recursion, more
// than 24 optional properties or 16 union-typed ones, nesting past 64.
func fitSchema(schema []byte) (json.RawMessage, bool) {
	f := &fitter{defs: map[string]bool{}, refs: map[string][]string{}}
	for _, k := range []string{"$defs", "definitions"} {
		sc, ok := rawjson.ScanObject(rawjson.Member(schema, k))
		for ok {
			name, _, more := sc.Next()
			if !more {
				break
			}
			n, _ := rawjson.String(name)
			f.defs[k+"/"+n] = true
		}
	}
	out, ok := f.fit(schema, 0, true)
	if !ok || f.recursive() || f.optional > maxOptionalParams || f.unions > maxUnionParams {
		return nil, false
	}
	return out, true
}

// member is one member of a schema being written.
type member struct {
	key string
	val []byte
}

func (f *fitter) fit(schema []byte, depth int, root bool) ([]byte, bool) {
	sc, ok := rawjson.ScanObject(schema)
	if !ok || depth > maxSchemaDepth {
		return nil, false
	}
	var (
		kept        []member
		left        []member // said in the description
		desc        []byte
		typ         []byte
		hasProps    bool
		addlFalse   bool
		required    = map[string]bool{}
		constrained bool // type, enum, const, $ref or a combinator
		ref         []byte
		defs        []member
	)
	for {
		k, v, more := sc.Next()
		if !more {
			break
		}
		key, _ := rawjson.String(k)
		switch key {
		case "$ref":
			r, _ := rawjson.String(v)
			target, isDef := strings.CutPrefix(r, "#/")
			if !isDef || !f.defs[unescapePointer(target)] {
				return nil, false // external, the root itself, a path into the schema
			}
			f.refs[f.cur] = append(f.refs[f.cur], unescapePointer(target))
			ref = v
		case "$defs", "definitions":
			if !root {
				return nil, false
			}
			d, ok := f.fitDefs(key, v, depth)
			if !ok {
				return nil, false
			}
			defs = append(defs, member{key, d})
		case "type":
			typ = v
			constrained = true
			kept = append(kept, member{key, v})
		case "anyOf", "oneOf", "allOf":
			list, ok := f.fitList(v, depth, key == "allOf")
			if !ok {
				return nil, false
			}
			if key == "oneOf" {
				key = "anyOf"
			}
			constrained = true
			kept = append(kept, member{key, list})
		case "enum":
			if !scalars(v) {
				return nil, false
			}
			constrained = true
			kept = append(kept, member{key, v})
		case "const":
			if !scalar(v) {
				return nil, false
			}
			constrained = true
			kept = append(kept, member{key, v})
		case "description":
			desc = v
		case "title", "default":
			kept = append(kept, member{key, v})
		case "required":
			var names []string
			_ = json.Unmarshal(v, &names)
			for _, n := range names {
				required[n] = true
			}
			kept = append(kept, member{key, v})
		case "properties":
			hasProps = true
		case "additionalProperties":
			if string(v) != "false" {
				return nil, false // a dictionary: false would allow only the listed members
			}
			addlFalse = true
		case "patternProperties", "prefixItems", "unevaluatedProperties", "propertyNames":
			return nil, false
		case "items":
			if _, isList := rawjson.ScanArray(v); isList {
				return nil, false
			}
			it, ok := f.fit(v, depth+1, false)
			if !ok {
				return nil, false
			}
			kept = append(kept, member{key, it})
		case "minItems":
			if n := string(v); n == "0" || n == "1" {
				kept = append(kept, member{key, v})
			} else {
				left = append(left, member{key, v})
			}
		case "format":
			if s, _ := rawjson.String(v); supportedFormats[s] && typeIs(typ, schema, "string") {
				kept = append(kept, member{key, v})
			} else {
				left = append(left, member{key, v})
			}
		case "$schema", "$id", "$comment":
		default:
			left = append(left, member{key, v})
		}
	}
	if ref != nil {
		// As the SDKs send a $ref: alone (with the root's definitions).
		return writeSchema(append([]member{{"$ref", ref}}, defs...)), true
	}
	if !constrained {
		return nil, false // a schema that allows anything
	}
	if typeIs(typ, schema, "object") {
		if !hasProps && !addlFalse {
			return nil, false // a free-form object
		}
		props, ok := f.fitProps(rawjson.Member(schema, "properties"), depth, required)
		if !ok {
			return nil, false
		}
		kept = append(kept, member{"properties", props}, member{"additionalProperties", []byte("false")})
	} else if hasProps || addlFalse {
		return nil, false // object keywords on a schema that is not an object: not guessed at
	}
	if d := described(desc, left); d != nil {
		kept = append(kept, member{"description", d})
	}
	return writeSchema(append(kept, defs...)), true
}

// fitProps fits an object's properties in their order, counting the
// optional and union-typed ones.
func (f *fitter) fitProps(props []byte, depth int, required map[string]bool) ([]byte, bool) {
	var out []member
	sc, ok := rawjson.ScanObject(props)
	if !ok && props != nil {
		return nil, false
	}
	for ok {
		k, v, more := sc.Next()
		if !more {
			break
		}
		name, _ := rawjson.String(k)
		p, fine := f.fit(v, depth+1, false)
		if !fine {
			return nil, false
		}
		if !required[name] {
			f.optional++
		}
		if rawjson.Member(p, "anyOf") != nil {
			f.unions++
		} else if _, list := rawjson.ScanArray(rawjson.Member(p, "type")); list {
			f.unions++
		}
		out = append(out, member{name, p})
	}
	return writeSchema(out), true
}

// fitList fits a combinator's branches; an allOf branch may not be a $ref
// ("allOf with $ref not supported").
func (f *fitter) fitList(v []byte, depth int, allOf bool) ([]byte, bool) {
	sc, ok := rawjson.ScanArray(v)
	if !ok {
		return nil, false
	}
	var b []byte
	b = append(b, '[')
	n := 0
	for {
		_, e, more := sc.Next()
		if !more {
			break
		}
		if allOf && rawjson.Member(e, "$ref") != nil {
			return nil, false
		}
		fe, fine := f.fit(e, depth+1, false)
		if !fine {
			return nil, false
		}
		if n > 0 {
			b = append(b, ',')
		}
		b = append(b, fe...)
		n++
	}
	if n == 0 {
		return nil, false
	}
	return append(b, ']'), true
}

// fitDefs fits the root's definitions, recording each one's references.
func (f *fitter) fitDefs(key string, v []byte, depth int) ([]byte, bool) {
	sc, ok := rawjson.ScanObject(v)
	if !ok {
		return nil, false
	}
	var out []member
	saved := f.cur
	defer func() { f.cur = saved }()
	for {
		k, d, more := sc.Next()
		if !more {
			break
		}
		name, _ := rawjson.String(k)
		f.cur = key + "/" + name
		fd, fine := f.fit(d, depth+1, false)
		if !fine {
			return nil, false
		}
		out = append(out, member{name, fd})
	}
	return writeSchema(out), true
}

// recursive reports whether a definition refers to itself, directly or
// through others: Anthropic refuses recursive schemas.
func (f *fitter) recursive() bool {
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(string) bool
	visit = func(d string) bool {
		switch state[d] {
		case 1:
			return true
		case 2:
			return false
		}
		state[d] = 1
		for _, r := range f.refs[d] {
			if visit(r) {
				return true
			}
		}
		state[d] = 2
		return false
	}
	for d := range f.refs {
		if d != "" && visit(d) {
			return true
		}
	}
	return false
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

// writeSchema writes members as a JSON object, in order.
func writeSchema(ms []member) []byte {
	b := []byte{'{'}
	for i, m := range ms {
		if i > 0 {
			b = append(b, ',')
		}
		b = rawjson.AppendString(b, m.key)
		b = append(b, ':')
		b = append(b, m.val...)
	}
	return append(b, '}')
}

// typeIs reports whether a schema's type (its raw "type" member, or read
// from the schema when the member comes later) is or includes t.
func typeIs(typ, schema []byte, t string) bool {
	if typ == nil {
		typ = rawjson.Member(schema, "type")
	}
	if s, ok := rawjson.String(typ); ok {
		return s == t
	}
	var list []string
	_ = json.Unmarshal(typ, &list)
	for _, s := range list {
		if s == t {
			return true
		}
	}
	return false
}

// scalar reports whether v is a string, number, boolean or null.
func scalar(v []byte) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] != '{' && v[0] != '['
}

// scalars reports whether v is a non-empty list of scalars: Anthropic
// takes no complex types in an enum.
func scalars(v []byte) bool {
	sc, ok := rawjson.ScanArray(v)
	n := 0
	for ok {
		_, e, more := sc.Next()
		if !more {
			break
		}
		if !scalar(e) {
			return false
		}
		n++
	}
	return n > 0
}

// unescapePointer decodes a JSON pointer's ~1 and ~0 ("#/$defs/a~1b" names
// the definition "a/b" under "$defs").
func unescapePointer(p string) string {
	if !strings.Contains(p, "~") {
		return p
	}
	i := strings.IndexByte(p, '/')
	if i < 0 {
		return p
	}
	return p[:i+1] + strings.NewReplacer("~1", "/", "~0", "~").Replace(p[i+1:])
}
