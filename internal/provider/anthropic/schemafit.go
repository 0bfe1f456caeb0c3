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
// than 24 optional properties or 16 union-typed ones, nesting past 64; and
// (review 66k) an open object with empty properties, an open object
// branch of allOf or of a combinator beside properties (closed, the
// branches refuse each other's members), a $ref beside a member that
// constrains (refWords).
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
	return out.appendTo(make([]byte, 0, len(schema)+len(schema)/8)), true
}

// refWords are the members a $ref may have beside it that say nothing of
// what the answer may be (annotations, and a type the definition has
// anyway): the SDKs send a $ref alone, and a member that constrains (a
// "required", "properties", an "enum" beside it, which JSON Schema from
// 2019-09 applies with the $ref) is not dropped unsaid (review 66k).
var refWords = map[string]bool{"$ref": true, "$defs": true, "definitions": true, "description": true, "title": true,
	"default": true, "examples": true, "deprecated": true, "readOnly": true, "writeOnly": true, "type": true,
	"$schema": true, "$id": true, "$comment": true}

func (f *fitter) fit(schema []byte, depth int, root bool) (node, bool) {
	sc, ok := rawjson.ScanObject(schema)
	if !ok || depth > maxSchemaDepth {
		return nil, false
	}
	// An object with members of its own: a combinator's branch that is an
	// object too must hold the same instance (conjunction, below).
	ownProps := rawjson.Member(schema, "properties") != nil
	var (
		kept        node
		left        []member // said in the description
		desc        []byte
		typ         []byte
		hasProps    bool
		addlFalse   bool
		required    = map[string]bool{}
		constrained bool // type, enum, const, $ref or a combinator
		ref         []byte
		defs        node
		constrains  bool // a member beside a $ref that refWords does not name
	)
	for {
		k, v, more := sc.Next()
		if !more {
			break
		}
		key, _ := rawjson.String(k)
		if !refWords[key] {
			constrains = true
		}
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
			defs = append(defs, member{key: key, sub: d})
		case "type":
			typ = v
			constrained = true
			kept = append(kept, member{key: key, val: v})
		case "anyOf", "oneOf", "allOf":
			list, ok := f.fitList(v, depth, key == "allOf", key == "allOf" || ownProps)
			if !ok {
				return nil, false
			}
			if key == "oneOf" {
				key = "anyOf"
			}
			constrained = true
			kept = append(kept, member{key: key, list: list})
		case "enum":
			if !scalars(v) {
				return nil, false
			}
			constrained = true
			kept = append(kept, member{key: key, val: v})
		case "const":
			if !scalar(v) {
				return nil, false
			}
			constrained = true
			kept = append(kept, member{key: key, val: v})
		case "description":
			desc = v
		case "title", "default":
			kept = append(kept, member{key: key, val: v})
		case "required":
			var names []string
			_ = json.Unmarshal(v, &names)
			for _, n := range names {
				required[n] = true
			}
			kept = append(kept, member{key: key, val: v})
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
			kept = append(kept, member{key: key, sub: it})
		case "minItems":
			if n := string(v); n == "0" || n == "1" {
				kept = append(kept, member{key: key, val: v})
			} else {
				left = append(left, member{key: key, val: v})
			}
		case "format":
			if s, _ := rawjson.String(v); supportedFormats[s] && typeIs(typ, schema, "string") {
				kept = append(kept, member{key: key, val: v})
			} else {
				left = append(left, member{key: key, val: v})
			}
		case "$schema", "$id", "$comment":
		default:
			left = append(left, member{key: key, val: v})
		}
	}
	if ref != nil {
		if constrains {
			return nil, false // dropped, a member beside it would no longer hold
		}
		// As the SDKs send a $ref: alone (with the root's definitions).
		return append(node{{key: "$ref", val: ref}}, defs...), true
	}
	if !constrained {
		return nil, false // a schema that allows anything
	}
	if typeIs(typ, schema, "object") {
		if !addlFalse && !hasMembers(rawjson.Member(schema, "properties")) {
			return nil, false // a free-form object ("properties": {} too): closed, it would allow only {}
		}
		props, ok := f.fitProps(rawjson.Member(schema, "properties"), depth, required)
		if !ok {
			return nil, false
		}
		if !addlFalse {
			// A member the client requires beside its properties (or in
			// properties a repeated "properties" replaced): closed, the
			// object could not hold it, and no answer would do.
			for n := range required {
				if props.get(n) == nil {
					return nil, false
				}
			}
		}
		kept = append(kept, member{key: "properties", sub: props}, member{key: "additionalProperties", val: []byte("false")})
	} else if hasProps || addlFalse {
		return nil, false // object keywords on a schema that is not an object: not guessed at
	}
	if d := described(desc, left); d != nil {
		kept = append(kept, member{key: "description", val: d})
	}
	return append(kept, defs...), true
}

// hasMembers reports whether v is an object with at least one member.
func hasMembers(v []byte) bool {
	sc, ok := rawjson.ScanObject(v)
	if !ok {
		return false
	}
	_, _, more := sc.Next()
	return more
}

// fitProps fits an object's properties in their order, counting the
// optional and union-typed ones.
func (f *fitter) fitProps(props []byte, depth int, required map[string]bool) (node, bool) {
	out := node{}
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
		if p.get("anyOf") != nil {
			f.unions++
		} else if t := p.get("type"); t != nil {
			if _, list := rawjson.ScanArray(t.val); list {
				f.unions++
			}
		}
		out = append(out, member{key: name, sub: p})
	}
	return out, true
}

// fitList fits a combinator's branches; an allOf branch may not be a $ref
// ("allOf with $ref not supported"). Where the branches hold the same
// instance as each other or as the object around them (conj: allOf, or a
// combinator beside properties), a branch that is an object the client
// left open is not fitted: closed, each would refuse the others' members,
// and an answer with all the members the client requires could not be
// written (review 66k: zod's .and() as allOf).
func (f *fitter) fitList(v []byte, depth int, allOf, conj bool) ([]node, bool) {
	sc, ok := rawjson.ScanArray(v)
	if !ok {
		return nil, false
	}
	var out []node
	for {
		_, e, more := sc.Next()
		if !more {
			break
		}
		if allOf && rawjson.Member(e, "$ref") != nil {
			return nil, false
		}
		if conj && (typeIs(nil, e, "object") || rawjson.Member(e, "properties") != nil) && string(rawjson.Member(e, "additionalProperties")) != "false" {
			return nil, false
		}
		fe, fine := f.fit(e, depth+1, false)
		if !fine {
			return nil, false
		}
		out = append(out, fe)
	}
	if len(out) == 0 {
		return nil, false
	}
	return out, true
}

// fitDefs fits the root's definitions, recording each one's references.
func (f *fitter) fitDefs(key string, v []byte, depth int) (node, bool) {
	sc, ok := rawjson.ScanObject(v)
	if !ok {
		return nil, false
	}
	out := node{}
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
		out = append(out, member{key: name, sub: fd})
	}
	return out, true
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
